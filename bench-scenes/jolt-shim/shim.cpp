// The constraints, height fields and system settings that JoltC 0.3 does not expose, for the
// Jolt peer of impetus-bench (bench-scenes/src/jolt.rs). A plain C API over Jolt's C++ one.
//
// JoltC's handles are Jolt's own objects cast to opaque C types, so a `JPC_PhysicsSystem *`
// is passed here as the `JPH::PhysicsSystem *` it is, a `JPC_Shape *` as a `JPH::Shape *`
// and a `JPC_BodyID` as the 32-bit value of a `JPH::BodyID`. bench-scenes/build.rs compiles
// this file with the definitions that Jolt's CMake build gives its Release configuration;
// `impetus_jolt_verify_version` checks them against the library's.

#include <Jolt/Jolt.h>

#include <Jolt/Physics/Body/BodyInterface.h>
#include <Jolt/Physics/Body/BodyLock.h>
#include <Jolt/Physics/Collision/GroupFilterTable.h>
#include <Jolt/Physics/Collision/Shape/HeightFieldShape.h>
#include <Jolt/Physics/Constraints/DistanceConstraint.h>
#include <Jolt/Physics/Constraints/FixedConstraint.h>
#include <Jolt/Physics/Constraints/HingeConstraint.h>
#include <Jolt/Physics/Constraints/PointConstraint.h>
#include <Jolt/Physics/Constraints/SwingTwistConstraint.h>
#include <Jolt/Physics/PhysicsSystem.h>
#include <Jolt/RegisterTypes.h>

#include <cstdint>
#include <cstring>

using namespace JPH;

// The joint kinds of `ImpetusJoltJoint::kind`.
enum : uint32_t
{
	IMPETUS_JOLT_BALL = 0,
	IMPETUS_JOLT_HINGE = 1,
	IMPETUS_JOLT_CONE_TWIST = 2,
	IMPETUS_JOLT_FIXED = 3,
	IMPETUS_JOLT_DISTANCE = 4,
};

// Bits of `impetus_jolt_build_flags`.
enum : uint32_t
{
	IMPETUS_JOLT_ASSERTS = 1u << 0,
	IMPETUS_JOLT_PROFILE = 1u << 1,
	IMPETUS_JOLT_DEBUG_RENDERER = 1u << 2,
	IMPETUS_JOLT_DOUBLE_PRECISION = 1u << 3,
	IMPETUS_JOLT_AVX2 = 1u << 4,
	IMPETUS_JOLT_FMADD = 1u << 5,
	IMPETUS_JOLT_FLOATING_POINT_EXCEPTIONS = 1u << 6,
	IMPETUS_JOLT_NDEBUG = 1u << 7,
};

// One joint, everything in world space at the bodies' build poses (the layout of
// `ShimJoint` in jolt.rs).
struct ImpetusJoltJoint
{
	uint32_t kind;
	uint32_t body_a;
	uint32_t body_b;
	float anchor_a[3];
	float anchor_b[3];
	// The hinge axis, or the twist axis of a cone-twist joint (unit length).
	float axis[3];
	// A unit vector perpendicular to `axis`: a hinge's normal axis, a cone-twist's plane axis.
	float normal[3];
	uint32_t has_limits;
	float limits[2];
	uint32_t has_motor;
	float motor_speed;
	float motor_max_torque;
	float cone_angle;
	float twist[2];
	float length;
};

static void write_error(char *out, size_t len, const char *message)
{
	if (out == nullptr || len == 0)
		return;
	std::strncpy(out, message, len - 1);
	out[len - 1] = '\0';
}

static Vec3 vec3(const float v[3])
{
	return Vec3(v[0], v[1], v[2]);
}

extern "C" {

// Whether this file was compiled with the library's version and feature definitions (a
// mismatch changes the layout of Jolt's objects).
bool impetus_jolt_verify_version()
{
	return VerifyJoltVersionID();
}

// The build's configuration as IMPETUS_JOLT_* bits. Valid for the library when
// impetus_jolt_verify_version() holds (the version check covers asserts, the profiler, the
// debug renderer and double precision).
uint32_t impetus_jolt_build_flags()
{
	uint32_t flags = 0;
#ifdef JPH_ENABLE_ASSERTS
	flags |= IMPETUS_JOLT_ASSERTS;
#endif
#ifdef JPH_PROFILE_ENABLED
	flags |= IMPETUS_JOLT_PROFILE;
#endif
#ifdef JPH_DEBUG_RENDERER
	flags |= IMPETUS_JOLT_DEBUG_RENDERER;
#endif
#ifdef JPH_DOUBLE_PRECISION
	flags |= IMPETUS_JOLT_DOUBLE_PRECISION;
#endif
#ifdef JPH_USE_AVX2
	flags |= IMPETUS_JOLT_AVX2;
#endif
#ifdef JPH_USE_FMADD
	flags |= IMPETUS_JOLT_FMADD;
#endif
#ifdef JPH_FLOATING_POINT_EXCEPTIONS_ENABLED
	flags |= IMPETUS_JOLT_FLOATING_POINT_EXCEPTIONS;
#endif
#ifdef NDEBUG
	flags |= IMPETUS_JOLT_NDEBUG;
#endif
	return flags;
}

// Sets the system's gravity and its solver's velocity and position steps per update (the
// other PhysicsSettings keep their values).
void impetus_jolt_configure(PhysicsSystem *system, const float gravity[3], uint32_t velocity_steps, uint32_t position_steps)
{
	system->SetGravity(vec3(gravity));
	PhysicsSettings settings = system->GetPhysicsSettings();
	settings.mNumVelocitySteps = velocity_steps;
	settings.mNumPositionSteps = position_steps;
	system->SetPhysicsSettings(settings);
}

// A height field of sample_count x sample_count heights (row y at z = offset.z + y scale.z,
// sample x at x = offset.x + x scale.x, as HeightFieldShapeSettings lays them out) with
// Jolt's default block size and bits per sample. Returns the shape with one reference for
// the caller (released with JPC_Shape_Release), or null with the reason in `error`.
Shape *impetus_jolt_height_field(const float *samples, uint32_t sample_count, const float offset[3], const float scale[3], char *error, size_t error_len)
{
	HeightFieldShapeSettings settings(samples, vec3(offset), vec3(scale), sample_count);
	Shape::ShapeResult result = settings.Create();
	if (result.HasError())
	{
		write_error(error, error_len, result.GetError().c_str());
		return nullptr;
	}
	Shape *shape = result.Get().GetPtr();
	shape->AddRef();
	return shape;
}

// A group filter table of `sub_groups` sub-groups, every pair colliding, with one reference
// for the caller (released with impetus_jolt_group_filter_release).
GroupFilterTable *impetus_jolt_group_filter(uint32_t sub_groups)
{
	GroupFilterTable *table = new GroupFilterTable(sub_groups);
	table->AddRef();
	return table;
}

// Stops sub-groups a and b of a group from colliding (a != b, both below the table's size).
void impetus_jolt_group_filter_disable(GroupFilterTable *table, uint32_t a, uint32_t b)
{
	table->DisableCollision(a, b);
}

void impetus_jolt_group_filter_release(GroupFilterTable *table)
{
	table->Release();
}

// Puts a body in collision group (table, group, sub_group); false if there is no such body.
bool impetus_jolt_set_collision_group(PhysicsSystem *system, uint32_t body, const GroupFilterTable *table, uint32_t group, uint32_t sub_group)
{
	BodyLockWrite lock(system->GetBodyLockInterface(), BodyID(body));
	if (!lock.Succeeded())
		return false;
	lock.GetBody().SetCollisionGroup(CollisionGroup(table, group, sub_group));
	return true;
}

// Creates the joint and adds it to the system. Returns the constraint with one reference
// for the caller (removed and released with impetus_jolt_remove_joint), or null with the
// reason in `error`.
Constraint *impetus_jolt_add_joint(PhysicsSystem *system, const ImpetusJoltJoint *joint, char *error, size_t error_len)
{
	BodyInterface &bodies = system->GetBodyInterface();
	BodyID a(joint->body_a), b(joint->body_b);
	TwoBodyConstraint *constraint = nullptr;
	switch (joint->kind)
	{
	case IMPETUS_JOLT_BALL:
	{
		PointConstraintSettings s;
		s.mSpace = EConstraintSpace::WorldSpace;
		s.mPoint1 = RVec3(vec3(joint->anchor_a));
		s.mPoint2 = RVec3(vec3(joint->anchor_b));
		constraint = bodies.CreateConstraint(&s, a, b);
		break;
	}
	case IMPETUS_JOLT_HINGE:
	{
		HingeConstraintSettings s;
		s.mSpace = EConstraintSpace::WorldSpace;
		s.mPoint1 = RVec3(vec3(joint->anchor_a));
		s.mPoint2 = RVec3(vec3(joint->anchor_b));
		s.mHingeAxis1 = s.mHingeAxis2 = vec3(joint->axis);
		s.mNormalAxis1 = s.mNormalAxis2 = vec3(joint->normal);
		if (joint->has_limits)
		{
			s.mLimitsMin = joint->limits[0];
			s.mLimitsMax = joint->limits[1];
		}
		if (joint->has_motor)
			s.mMotorSettings.SetTorqueLimit(joint->motor_max_torque);
		constraint = bodies.CreateConstraint(&s, a, b);
		if (constraint != nullptr && joint->has_motor)
		{
			HingeConstraint *hinge = static_cast<HingeConstraint *>(constraint);
			hinge->SetMotorState(EMotorState::Velocity);
			hinge->SetTargetAngularVelocity(joint->motor_speed);
		}
		break;
	}
	case IMPETUS_JOLT_CONE_TWIST:
	{
		SwingTwistConstraintSettings s;
		s.mSpace = EConstraintSpace::WorldSpace;
		s.mPosition1 = RVec3(vec3(joint->anchor_a));
		s.mPosition2 = RVec3(vec3(joint->anchor_b));
		s.mTwistAxis1 = s.mTwistAxis2 = vec3(joint->axis);
		s.mPlaneAxis1 = s.mPlaneAxis2 = vec3(joint->normal);
		s.mNormalHalfConeAngle = joint->cone_angle;
		s.mPlaneHalfConeAngle = joint->cone_angle;
		s.mTwistMinAngle = joint->twist[0];
		s.mTwistMaxAngle = joint->twist[1];
		constraint = bodies.CreateConstraint(&s, a, b);
		break;
	}
	case IMPETUS_JOLT_FIXED:
	{
		FixedConstraintSettings s;
		s.mSpace = EConstraintSpace::WorldSpace;
		s.mAutoDetectPoint = false;
		s.mPoint1 = RVec3(vec3(joint->anchor_a));
		s.mPoint2 = RVec3(vec3(joint->anchor_b));
		constraint = bodies.CreateConstraint(&s, a, b);
		break;
	}
	case IMPETUS_JOLT_DISTANCE:
	{
		DistanceConstraintSettings s;
		s.mSpace = EConstraintSpace::WorldSpace;
		s.mPoint1 = RVec3(vec3(joint->anchor_a));
		s.mPoint2 = RVec3(vec3(joint->anchor_b));
		s.mMinDistance = joint->length;
		s.mMaxDistance = joint->length;
		constraint = bodies.CreateConstraint(&s, a, b);
		break;
	}
	default:
		write_error(error, error_len, "unknown joint kind");
		return nullptr;
	}
	if (constraint == nullptr)
	{
		write_error(error, error_len, "a body of the joint does not exist");
		return nullptr;
	}
	constraint->AddRef();
	system->AddConstraint(constraint);
	return constraint;
}

// Removes a joint made by impetus_jolt_add_joint from the system and drops the caller's
// reference.
void impetus_jolt_remove_joint(PhysicsSystem *system, Constraint *constraint)
{
	system->RemoveConstraint(constraint);
	constraint->Release();
}

} // extern "C"
