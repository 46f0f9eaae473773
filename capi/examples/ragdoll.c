/* A ragdoll: ten bodies joined by cone-twist joints (neck, shoulders, hips, spine) and
 * limited hinges (elbows with a spring, knees with a friction motor), dropped onto the
 * ground. Prints where it lands. */
#include <math.h>
#include <stdio.h>

#include "impetus.h"

#define CHECK(call)                                                                     \
    do {                                                                                \
        ImpStatus status_ = (call);                                                     \
        if (status_ != IMP_OK) {                                                        \
            fprintf(stderr, "%s failed (%d): %s\n", #call, (int)status_, imp_last_error()); \
            return 1;                                                                   \
        }                                                                               \
    } while (0)

enum { PELVIS, TORSO, HEAD, UPPER_ARM_L, LOWER_ARM_L, UPPER_ARM_R, LOWER_ARM_R, THIGH_L, SHIN_L,
       THIGH_R, SHIN_R, PART_COUNT };

static ImpWorldId world;
static ImpBodyId parts[PART_COUNT];

/* A dynamic body at `p` with a capsule (radius > 0) or a box (half extents `half`). The
 * limbs share a negative group, so they never collide with each other. */
static ImpStatus part(int index, ImpVec3 p, float half_height, float radius, ImpVec3 half) {
    ImpBodyDef body_def = imp_default_body_def();
    body_def.position = p;
    ImpStatus status = imp_body_create(world, &body_def, &parts[index]);
    if (status != IMP_OK) {
        return status;
    }
    ImpShapeDef shape_def = imp_default_shape_def();
    shape_def.filter.group = -1;
    ImpShapeId shape;
    if (radius > 0.0f) {
        return imp_shape_create_capsule(world, parts[index], &shape_def, half_height, radius,
                                        &shape);
    }
    return imp_shape_create_box(world, parts[index], &shape_def, half, &shape);
}

/* A joint between parts a and b at a world anchor, its z axis along `axis`. */
static ImpStatus joint(ImpJointDef *def, int a, int b, ImpVec3 anchor, ImpVec3 axis) {
    def->body_a = parts[a];
    def->body_b = parts[b];
    ImpStatus status = imp_joint_def_set_world_frame(world, def, anchor, axis);
    if (status != IMP_OK) {
        return status;
    }
    ImpJointId id;
    return imp_joint_create(world, def, &id);
}

int main(void) {
    CHECK(IMP_ABI_CHECK());
    ImpWorldDef world_def = imp_default_world_def();
    world_def.worker_count = 1;
    CHECK(imp_world_create(&world_def, &world));

    ImpBodyDef ground_def = imp_default_body_def();
    ground_def.body_type = IMP_BODY_STATIC;
    ImpBodyId ground;
    CHECK(imp_body_create(world, &ground_def, &ground));
    ImpShapeDef ground_shape = imp_default_shape_def();
    ImpShapeId plane;
    CHECK(imp_shape_create_plane(world, ground, &ground_shape, (ImpVec3){0.0f, 1.0f, 0.0f}, 0.0f,
                                 &plane));

    const float y = 2.0f; /* pelvis height at the start */
    const ImpVec3 none = {0.0f, 0.0f, 0.0f};
    CHECK(part(PELVIS, (ImpVec3){0.0f, y, 0.0f}, 0.0f, 0.0f, (ImpVec3){0.16f, 0.1f, 0.1f}));
    CHECK(part(TORSO, (ImpVec3){0.0f, y + 0.35f, 0.0f}, 0.0f, 0.0f, (ImpVec3){0.18f, 0.22f, 0.1f}));
    CHECK(part(HEAD, (ImpVec3){0.0f, y + 0.75f, 0.0f}, 0.02f, 0.11f, none));
    CHECK(part(UPPER_ARM_L, (ImpVec3){-0.3f, y + 0.4f, 0.0f}, 0.1f, 0.05f, none));
    CHECK(part(LOWER_ARM_L, (ImpVec3){-0.3f, y + 0.1f, 0.0f}, 0.1f, 0.045f, none));
    CHECK(part(UPPER_ARM_R, (ImpVec3){0.3f, y + 0.4f, 0.0f}, 0.1f, 0.05f, none));
    CHECK(part(LOWER_ARM_R, (ImpVec3){0.3f, y + 0.1f, 0.0f}, 0.1f, 0.045f, none));
    CHECK(part(THIGH_L, (ImpVec3){-0.1f, y - 0.3f, 0.0f}, 0.14f, 0.07f, none));
    CHECK(part(SHIN_L, (ImpVec3){-0.1f, y - 0.75f, 0.0f}, 0.14f, 0.06f, none));
    CHECK(part(THIGH_R, (ImpVec3){0.1f, y - 0.3f, 0.0f}, 0.14f, 0.07f, none));
    CHECK(part(SHIN_R, (ImpVec3){0.1f, y - 0.75f, 0.0f}, 0.14f, 0.06f, none));

    const ImpVec3 up = {0.0f, 1.0f, 0.0f}, down = {0.0f, -1.0f, 0.0f}, side = {1.0f, 0.0f, 0.0f};
    ImpJointDef cone = imp_default_joint_def();
    cone.joint_type = IMP_JOINT_CONE_TWIST;
    cone.cone_angle = 0.5f;
    cone.enable_limit = true; /* the twist */
    cone.lower = -0.4f;
    cone.upper = 0.4f;
    CHECK(joint(&cone, PELVIS, TORSO, (ImpVec3){0.0f, y + 0.12f, 0.0f}, up));
    CHECK(joint(&cone, TORSO, HEAD, (ImpVec3){0.0f, y + 0.6f, 0.0f}, up));
    cone.cone_angle = 1.2f;
    CHECK(joint(&cone, TORSO, UPPER_ARM_L, (ImpVec3){-0.3f, y + 0.55f, 0.0f}, down));
    CHECK(joint(&cone, TORSO, UPPER_ARM_R, (ImpVec3){0.3f, y + 0.55f, 0.0f}, down));
    cone.cone_angle = 0.8f;
    CHECK(joint(&cone, PELVIS, THIGH_L, (ImpVec3){-0.1f, y - 0.08f, 0.0f}, down));
    CHECK(joint(&cone, PELVIS, THIGH_R, (ImpVec3){0.1f, y - 0.08f, 0.0f}, down));

    /* Elbows: limited hinges with a soft spring towards a slight bend. */
    ImpJointDef elbow = imp_default_joint_def();
    elbow.joint_type = IMP_JOINT_HINGE;
    elbow.enable_limit = true;
    elbow.lower = 0.0f;
    elbow.upper = 2.5f;
    elbow.enable_spring = true;
    elbow.spring.spring_type = IMP_SPRING_FREQUENCY;
    elbow.spring.hertz = 2.0f;
    elbow.spring.damping_ratio = 0.7f;
    elbow.spring.target = 0.3f;
    CHECK(joint(&elbow, UPPER_ARM_L, LOWER_ARM_L, (ImpVec3){-0.3f, y + 0.25f, 0.0f}, side));
    CHECK(joint(&elbow, UPPER_ARM_R, LOWER_ARM_R, (ImpVec3){0.3f, y + 0.25f, 0.0f}, side));

    /* Knees: limited hinges with a zero-speed motor as joint friction. */
    ImpJointDef knee = imp_default_joint_def();
    knee.joint_type = IMP_JOINT_HINGE;
    knee.enable_limit = true;
    knee.lower = -2.5f;
    knee.upper = 0.0f;
    knee.enable_motor = true;
    knee.motor_speed = 0.0f;
    knee.max_motor_force = 5.0f;
    CHECK(joint(&knee, THIGH_L, SHIN_L, (ImpVec3){-0.1f, y - 0.53f, 0.0f}, side));
    CHECK(joint(&knee, THIGH_R, SHIN_R, (ImpVec3){0.1f, y - 0.53f, 0.0f}, side));

    /* A push so it falls over rather than straight down. */
    CHECK(imp_body_set_linear_velocity(world, parts[TORSO], (ImpVec3){1.5f, 0.0f, 0.5f}));

    uint32_t bodies, joints;
    CHECK(imp_world_get_counts(world, &bodies, &joints));
    printf("ragdoll: %u bodies, %u joints\n", bodies, joints);
    for (int i = 1; i <= 240; ++i) {
        CHECK(imp_world_step(world, 1.0f / 60.0f));
        if (i % 60 == 0) {
            ImpVec3 p, h;
            CHECK(imp_body_get_position(world, parts[PELVIS], &p));
            CHECK(imp_body_get_position(world, parts[HEAD], &h));
            printf("t = %.0f s: pelvis at (%.2f, %.2f, %.2f), head at y = %.2f\n",
                   (double)i / 60.0, (double)p.x, (double)p.y, (double)p.z, (double)h.y);
            if (!isfinite(p.y) || p.y < 0.0f || h.y < 0.0f) {
                fprintf(stderr, "the ragdoll fell through the ground\n");
                return 1;
            }
        }
    }
    /* The null id is never a joint. */
    ImpVec3 f;
    CHECK(imp_joint_get_reaction_force(world, (ImpJointId){0, 0}, &f) == IMP_ERR_STALE_ID
              ? IMP_OK
              : IMP_ERR_INVALID_INPUT);
    CHECK(imp_world_destroy(world));
    printf("ragdoll: done\n");
    return 0;
}
