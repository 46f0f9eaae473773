/* The C ABI's contract, checked from C: the documented status codes for null pointers,
 * stale ids, bad definitions and out-of-range enumerations; every shape kind and joint
 * kind; a plane's offset; queries; events and how long their views stay valid; sleep; the
 * stepper; snapshots and images; callbacks; debug drawing. Run by capi/tests/c_programs.rs
 * (and under valgrind). Prints "api_test: N checks passed" and exits 0, or names the first
 * failed check. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "impetus.h"

static int checks = 0;

#define EXPECT(cond)                                                                   \
    do {                                                                               \
        ++checks;                                                                      \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s (last error: %s)\n", __FILE__,    \
                    __LINE__, #cond, imp_last_error());                                \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

#define STATUS(call, expected) EXPECT((call) == (expected))
#define OK(call) STATUS(call, IMP_OK)
#define ERROR_NAMES(word) EXPECT(strstr(imp_last_error(), (word)) != NULL)

static const float dt = 1.0f / 60.0f;

static ImpWorldId new_world(bool sleep) {
    ImpWorldDef def = imp_default_world_def();
    def.worker_count = 1;
    def.enable_sleep = sleep;
    ImpWorldId world;
    OK(imp_world_create(&def, &world));
    return world;
}

static ImpBodyId static_ground(ImpWorldId world) {
    ImpBodyDef def = imp_default_body_def();
    def.body_type = IMP_BODY_STATIC;
    def.position = (ImpVec3){0.0f, -1.0f, 0.0f};
    ImpBodyId body;
    OK(imp_body_create(world, &def, &body));
    ImpShapeDef shape_def = imp_default_shape_def();
    ImpShapeId shape;
    OK(imp_shape_create_box(world, body, &shape_def, (ImpVec3){20.0f, 1.0f, 20.0f}, &shape));
    return body;
}

static ImpBodyId dynamic_box(ImpWorldId world, ImpVec3 p, ImpShapeDef *shape_def) {
    ImpBodyDef def = imp_default_body_def();
    def.position = p;
    ImpBodyId body;
    OK(imp_body_create(world, &def, &body));
    ImpShapeDef plain = imp_default_shape_def();
    ImpShapeId shape;
    OK(imp_shape_create_box(world, body, shape_def ? shape_def : &plain,
                            (ImpVec3){0.5f, 0.5f, 0.5f}, &shape));
    return body;
}

static void abi_and_errors(void) {
    OK(IMP_ABI_CHECK());
    STATUS(imp_abi_check(IMP_ABI_VERSION + 1, sizeof(ImpWorldDef), sizeof(ImpBodyDef),
                         sizeof(ImpShapeDef), sizeof(ImpJointDef)),
           IMP_ERR_ABI_MISMATCH);
    ERROR_NAMES("IMP_ABI_VERSION");
    STATUS(imp_abi_check(IMP_ABI_VERSION, sizeof(ImpWorldDef), sizeof(ImpBodyDef) + 4,
                         sizeof(ImpShapeDef), sizeof(ImpJointDef)),
           IMP_ERR_ABI_MISMATCH);
    ERROR_NAMES("sizeof(ImpBodyDef)");

    /* Null pointers. */
    ImpWorldDef world_def = imp_default_world_def();
    ImpWorldId world;
    STATUS(imp_world_create(NULL, &world), IMP_ERR_NULL_POINTER);
    ERROR_NAMES("def");
    STATUS(imp_world_create(&world_def, NULL), IMP_ERR_NULL_POINTER);
    ERROR_NAMES("out");
    world = new_world(false);
    ImpBodyId body = dynamic_box(world, (ImpVec3){0.0f, 1.0f, 0.0f}, NULL);
    STATUS(imp_body_get_position(world, body, NULL), IMP_ERR_NULL_POINTER);
    STATUS(imp_body_create(world, NULL, &body), IMP_ERR_NULL_POINTER);
    ImpShapeDef shape_def = imp_default_shape_def();
    ImpShapeId shape;
    STATUS(imp_shape_create_hull(world, body, &shape_def, NULL, 8, &shape), IMP_ERR_NULL_POINTER);
    ERROR_NAMES("points");

    /* Definitions that did not come from their default function. */
    ImpBodyDef garbage;
    memset(&garbage, 0xAB, sizeof garbage);
    ImpBodyId other;
    STATUS(imp_body_create(world, &garbage, &other), IMP_ERR_BAD_DEF);
    ERROR_NAMES("ImpBodyDef");
    ImpBodyDef zero;
    memset(&zero, 0, sizeof zero);
    STATUS(imp_body_create(world, &zero, &other), IMP_ERR_BAD_DEF);
    ImpShapeDef zero_shape;
    memset(&zero_shape, 0, sizeof zero_shape);
    STATUS(imp_shape_create_sphere(world, body, &zero_shape, 1.0f, &shape), IMP_ERR_BAD_DEF);
    ImpJointDef zero_joint;
    memset(&zero_joint, 0, sizeof zero_joint);
    ImpJointId joint;
    STATUS(imp_joint_create(world, &zero_joint, &joint), IMP_ERR_BAD_DEF);
    ImpWorldDef zero_world;
    memset(&zero_world, 0, sizeof zero_world);
    STATUS(imp_world_create(&zero_world, &world), IMP_ERR_BAD_DEF);
    ERROR_NAMES("ImpWorldDef");

    /* Out-of-range enumerations. */
    ImpBodyDef bad_type = imp_default_body_def();
    bad_type.body_type = 7;
    STATUS(imp_body_create(world, &bad_type, &other), IMP_ERR_INVALID_ENUM);
    ERROR_NAMES("body_type");
    ImpJointDef bad_joint = imp_default_joint_def();
    bad_joint.body_a = body;
    bad_joint.body_b = dynamic_box(world, (ImpVec3){2.0f, 1.0f, 0.0f}, NULL);
    bad_joint.joint_type = 99;
    STATUS(imp_joint_create(world, &bad_joint, &joint), IMP_ERR_INVALID_ENUM);
    ERROR_NAMES("joint_type");
    bad_joint.joint_type = IMP_JOINT_HINGE;
    bad_joint.enable_spring = true;
    bad_joint.spring.spring_type = 5;
    STATUS(imp_joint_create(world, &bad_joint, &joint), IMP_ERR_INVALID_ENUM);
    ERROR_NAMES("spring");

    /* Out-of-range values name the field. */
    STATUS(imp_shape_create_sphere(world, body, &shape_def, -1.0f, &shape), IMP_ERR_INVALID_INPUT);
    ERROR_NAMES("radius");
    STATUS(imp_world_step(world, -1.0f), IMP_ERR_INVALID_INPUT);
    STATUS(imp_body_set_linear_velocity(world, body, (ImpVec3){NAN, 0.0f, 0.0f}),
           IMP_ERR_INVALID_INPUT);
    /* A plane on a dynamic body is refused, naming the shape. */
    STATUS(imp_shape_create_plane(world, body, &shape_def, (ImpVec3){0.0f, 1.0f, 0.0f}, 0.0f,
                                  &shape),
           IMP_ERR_INVALID_INPUT);
    ERROR_NAMES("ShapeDef::shape");

    /* Stale and null ids. */
    ImpVec3 p;
    OK(imp_body_get_position(world, body, &p));
    OK(imp_body_destroy(world, body));
    STATUS(imp_body_get_position(world, body, &p), IMP_ERR_STALE_ID);
    ERROR_NAMES("BodyId");
    STATUS(imp_body_destroy(world, body), IMP_ERR_STALE_ID);
    STATUS(imp_body_get_position(world, (ImpBodyId){0, 0}, &p), IMP_ERR_STALE_ID);
    EXPECT(!imp_body_is_valid(world, body));
    STATUS(imp_shape_destroy(world, (ImpShapeId){0, 0}), IMP_ERR_STALE_ID);
    STATUS(imp_joint_destroy(world, (ImpJointId){0, 0}), IMP_ERR_STALE_ID);
    /* A new body may reuse the slot, with another generation: the old id stays stale. */
    ImpBodyId reused = dynamic_box(world, (ImpVec3){0.0f, 3.0f, 0.0f}, NULL);
    EXPECT(reused.generation != 0);
    STATUS(imp_body_get_position(world, body, &p), IMP_ERR_STALE_ID);
    OK(imp_world_destroy(world));
    STATUS(imp_world_step(world, dt), IMP_ERR_STALE_ID);
    ERROR_NAMES("ImpWorldId");
    STATUS(imp_world_destroy(world), IMP_ERR_STALE_ID);
    STATUS(imp_world_step((ImpWorldId){0, 0}, dt), IMP_ERR_STALE_ID);
    EXPECT(!imp_world_is_valid(world));
}

static void every_shape_kind(void) {
    ImpWorldId world = new_world(false);
    ImpShapeDef def = imp_default_shape_def();
    ImpBodyDef static_def = imp_default_body_def();
    static_def.body_type = IMP_BODY_STATIC;
    ImpBodyId ground;
    OK(imp_body_create(world, &static_def, &ground));
    ImpShapeId plane, mesh, field;
    OK(imp_shape_create_plane(world, ground, &def, (ImpVec3){0.0f, 1.0f, 0.0f}, 0.0f, &plane));
    /* A 2 x 2 m mesh square at y = 0.5 around x = 10 (two triangles, up-facing). */
    const ImpVec3 verts[4] = {{9.0f, 0.5f, -1.0f}, {11.0f, 0.5f, -1.0f}, {11.0f, 0.5f, 1.0f},
                              {9.0f, 0.5f, 1.0f}};
    const uint32_t tris[6] = {0, 2, 1, 0, 3, 2};
    OK(imp_shape_create_mesh(world, ground, &def, verts, 4, tris, 2, &mesh));
    /* A 3 x 3 height field, 1 m cells, its corner at (-12, 0, -1): a bump in the middle. */
    ImpBodyDef field_def = static_def;
    field_def.position = (ImpVec3){-12.0f, 0.0f, -1.0f};
    ImpBodyId field_body;
    OK(imp_body_create(world, &field_def, &field_body));
    const float heights[9] = {0.2f, 0.2f, 0.2f, 0.2f, 0.6f, 0.2f, 0.2f, 0.2f, 0.2f};
    OK(imp_shape_create_height_field(world, field_body, &def, heights, 3, 3,
                                     (ImpVec3){1.0f, 1.0f, 1.0f}, &field));
    STATUS(imp_shape_create_height_field(world, field_body, &def, heights, 1, 9,
                                         (ImpVec3){1.0f, 1.0f, 1.0f}, &field),
           IMP_ERR_INVALID_INPUT);
    ERROR_NAMES("rows");

    ImpBodyDef body_def = imp_default_body_def();
    ImpBodyId bodies[4];
    ImpShapeId shapes[4];
    const float xs[4] = {-4.0f, -2.0f, 0.0f, 10.0f};
    for (int i = 0; i < 4; ++i) {
        body_def.position = (ImpVec3){xs[i], 2.0f, 0.0f};
        OK(imp_body_create(world, &body_def, &bodies[i]));
    }
    OK(imp_shape_create_sphere(world, bodies[0], &def, 0.4f, &shapes[0]));
    OK(imp_shape_create_capsule(world, bodies[1], &def, 0.3f, 0.2f, &shapes[1]));
    OK(imp_shape_create_box(world, bodies[2], &def, (ImpVec3){0.3f, 0.3f, 0.3f}, &shapes[2]));
    /* A hull from the corners of a 0.6 m cube (plus an inner point it drops). */
    ImpVec3 pts[9];
    for (int i = 0; i < 8; ++i) {
        pts[i] = (ImpVec3){(i & 1) ? 0.3f : -0.3f, (i & 2) ? 0.3f : -0.3f, (i & 4) ? 0.3f : -0.3f};
    }
    pts[8] = (ImpVec3){0.0f, 0.0f, 0.0f};
    OK(imp_shape_create_hull(world, bodies[3], &def, pts, 9, &shapes[3]));
    STATUS(imp_shape_create_hull(world, bodies[3], &def, pts, 3, &shapes[3]),
           IMP_ERR_INVALID_INPUT);

    /* A sphere above the height field's bump. */
    ImpBodyId ball;
    body_def.position = (ImpVec3){-11.0f, 2.0f, 0.0f};
    OK(imp_body_create(world, &body_def, &ball));
    ImpShapeId ball_shape;
    OK(imp_shape_create_sphere(world, ball, &def, 0.25f, &ball_shape));

    const ImpShapeType kinds[4] = {IMP_SHAPE_SPHERE, IMP_SHAPE_CAPSULE, IMP_SHAPE_BOX,
                                   IMP_SHAPE_HULL};
    for (int i = 0; i < 4; ++i) {
        ImpShapeType t;
        OK(imp_shape_get_type(world, shapes[i], &t));
        EXPECT(t == kinds[i]);
        ImpBodyId owner;
        OK(imp_shape_get_body(world, shapes[i], &owner));
        EXPECT(owner.index == bodies[i].index && owner.generation == bodies[i].generation);
    }
    ImpShapeType t;
    OK(imp_shape_get_type(world, mesh, &t));
    EXPECT(t == IMP_SHAPE_MESH);
    OK(imp_shape_get_type(world, field, &t));
    EXPECT(t == IMP_SHAPE_HEIGHT_FIELD);

    for (int i = 0; i < 120; ++i) {
        OK(imp_world_step(world, dt));
    }
    /* Each rests: on the plane, on the mesh (top at 0.5), on the bump (0.6). */
    ImpVec3 p;
    OK(imp_body_get_position(world, bodies[0], &p));
    EXPECT(fabsf(p.y - 0.4f) < 0.02f);
    OK(imp_body_get_position(world, bodies[1], &p));
    EXPECT(p.y > 0.15f && p.y < 0.55f);
    OK(imp_body_get_position(world, bodies[2], &p));
    EXPECT(fabsf(p.y - 0.3f) < 0.02f);
    OK(imp_body_get_position(world, bodies[3], &p));
    EXPECT(fabsf(p.y - 0.8f) < 0.02f);
    OK(imp_body_get_position(world, ball, &p));
    EXPECT(p.y > 0.3f && p.y < 1.0f);

    uint32_t count = 0;
    OK(imp_body_get_shapes(world, bodies[0], NULL, 0, &count));
    EXPECT(count == 1);
    ImpShapeId list[1];
    OK(imp_body_get_shapes(world, bodies[0], list, 1, &count));
    EXPECT(list[0].index == shapes[0].index);
    OK(imp_body_get_shape_count(world, ground, &count));
    EXPECT(count == 2);
    STATUS(imp_body_get_shapes(world, ground, list, 1, &count), IMP_ERR_BUFFER_TOO_SMALL);

    ImpFilter filter;
    OK(imp_shape_get_filter(world, shapes[0], &filter));
    EXPECT(filter.category == 1 && filter.mask == UINT64_MAX && filter.group == 0);
    filter.group = -3;
    OK(imp_shape_set_filter(world, shapes[0], filter));
    OK(imp_shape_get_filter(world, shapes[0], &filter));
    EXPECT(filter.group == -3);
    OK(imp_shape_destroy(world, shapes[0]));
    STATUS(imp_shape_get_type(world, shapes[0], &t), IMP_ERR_STALE_ID);
    OK(imp_world_destroy(world));
}

static void every_joint_kind(void) {
    ImpWorldId world = new_world(false);
    static_ground(world);
    ImpBodyDef anchor_def = imp_default_body_def();
    anchor_def.body_type = IMP_BODY_STATIC;
    const ImpJointType kinds[7] = {IMP_JOINT_BALL,     IMP_JOINT_HINGE,      IMP_JOINT_SLIDER,
                                   IMP_JOINT_FIXED,    IMP_JOINT_DISTANCE,   IMP_JOINT_CONE_TWIST,
                                   IMP_JOINT_MOTOR};
    ImpJointId joints[7];
    ImpBodyId hanging[7];
    for (int k = 0; k < 7; ++k) {
        float x = -9.0f + 3.0f * (float)k;
        anchor_def.position = (ImpVec3){x, 5.0f, 0.0f};
        ImpBodyId anchor;
        OK(imp_body_create(world, &anchor_def, &anchor));
        hanging[k] = dynamic_box(world, (ImpVec3){x, 4.0f, 0.0f}, NULL);
        ImpJointDef def = imp_default_joint_def();
        def.joint_type = kinds[k];
        def.body_a = anchor;
        def.body_b = hanging[k];
        switch (kinds[k]) {
        case IMP_JOINT_HINGE:
            def.enable_limit = true;
            def.lower = -0.5f;
            def.upper = 0.5f;
            def.enable_motor = true;
            def.motor_speed = 1.0f;
            def.max_motor_force = 100.0f;
            break;
        case IMP_JOINT_SLIDER:
            def.enable_limit = true;
            def.lower = -0.5f;
            def.upper = 0.25f;
            def.enable_spring = true;
            def.spring.spring_type = IMP_SPRING_PHYSICAL;
            def.spring.stiffness = 500.0f;
            def.spring.damping = 20.0f;
            break;
        case IMP_JOINT_FIXED:
            def.enable_angular_spring = true;
            def.angular_spring.hertz = 4.0f;
            break;
        case IMP_JOINT_DISTANCE:
            def.min_length = 0.5f;
            def.max_length = 1.5f;
            def.enable_spring = true;
            def.spring.target = 1.0f;
            break;
        case IMP_JOINT_CONE_TWIST:
            def.cone_angle = 0.4f;
            def.enable_limit = true;
            def.lower = -0.2f;
            def.upper = 0.2f;
            break;
        case IMP_JOINT_MOTOR:
            /* Strong enough to carry the box's 9.8 kN weight. */
            def.max_force = 20000.0f;
            def.max_torque = 5000.0f;
            break;
        default:
            break;
        }
        /* Anchored 0.5 m above the box's centre, axis along y (the slider slides there). */
        OK(imp_joint_def_set_world_frame(world, &def, (ImpVec3){x, 4.5f, 0.0f},
                                         (ImpVec3){0.0f, 1.0f, 0.0f}));
        OK(imp_joint_create(world, &def, &joints[k]));
        ImpJointType t;
        OK(imp_joint_get_type(world, joints[k], &t));
        EXPECT(t == kinds[k]);
    }
    /* A hinge limit outside (-pi, pi) is refused, naming it. */
    ImpJointDef bad = imp_default_joint_def();
    bad.joint_type = IMP_JOINT_HINGE;
    bad.body_a = hanging[0];
    bad.body_b = hanging[1];
    bad.enable_limit = true;
    bad.lower = -4.0f;
    bad.upper = 0.0f;
    ImpJointId j;
    STATUS(imp_joint_create(world, &bad, &j), IMP_ERR_INVALID_INPUT);
    ERROR_NAMES("Hinge::limits");

    for (int i = 0; i < 120; ++i) {
        OK(imp_world_step(world, dt));
    }
    /* Every box still hangs near its anchor (nothing fell to the ground). */
    for (int k = 0; k < 7; ++k) {
        ImpVec3 p;
        OK(imp_body_get_position(world, hanging[k], &p));
        if (!(p.y > 2.5f && p.y < 5.0f)) {
            fprintf(stderr, "joint type %u: box at y = %f\n", kinds[k], (double)p.y);
        }
        EXPECT(p.y > 2.5f && p.y < 5.0f);
    }
    ImpBodyId a, b;
    OK(imp_joint_get_bodies(world, joints[2], &a, &b));
    EXPECT(b.index == hanging[2].index && b.generation == hanging[2].generation);
    EXPECT(a.generation != 0);
    ImpVec3 force;
    OK(imp_joint_get_reaction_force(world, joints[0], &force));
    /* The ball joint carries the box's weight: 1000 kg/m^3, 1 m^3, 9.81 m/s^2. */
    EXPECT(fabsf(force.y) > 9000.0f && fabsf(force.y) < 10600.0f);
    ImpVec3 torque;
    OK(imp_joint_get_reaction_torque(world, joints[1], &torque));
    OK(imp_joint_set_motor_speed(world, joints[1], -1.0f));
    STATUS(imp_joint_set_motor_speed(world, joints[0], 1.0f), IMP_ERR_UNSUPPORTED);
    ImpJointDef update = imp_default_joint_def();
    update.joint_type = IMP_JOINT_DISTANCE;
    update.min_length = 0.8f;
    update.max_length = 0.8f;
    OK(imp_joint_update(world, joints[0], &update));
    ImpJointType t;
    OK(imp_joint_get_type(world, joints[0], &t));
    EXPECT(t == IMP_JOINT_DISTANCE);
    OK(imp_world_step(world, dt));
    OK(imp_joint_destroy(world, joints[0]));
    STATUS(imp_joint_get_type(world, joints[0], &t), IMP_ERR_STALE_ID);
    OK(imp_world_destroy(world));
}

typedef struct Hits {
    int count;
    ImpShapeId first;
} Hits;

static bool count_shapes(ImpShapeId shape, void *context) {
    Hits *hits = context;
    if (hits->count++ == 0) {
        hits->first = shape;
    }
    return true;
}

static bool count_ray_hits(const ImpRayHit *hit, void *context) {
    return count_shapes(hit->shape, context);
}

static bool stop_at_first(ImpShapeId shape, void *context) {
    count_shapes(shape, context);
    return false;
}

static bool not_this_shape(ImpShapeId shape, void *context) {
    const ImpShapeId *skip = context;
    return shape.index != skip->index;
}

static void queries(void) {
    ImpWorldId world = new_world(false);
    static_ground(world);
    ImpBodyId boxes[3];
    for (int i = 0; i < 3; ++i) {
        boxes[i] = dynamic_box(world, (ImpVec3){3.0f * (float)i, 0.5f, 0.0f}, NULL);
    }
    OK(imp_world_step(world, dt));

    ImpRayHit hit;
    bool any = false;
    OK(imp_world_cast_ray(world, (ImpVec3){0.0f, 5.0f, 0.0f}, (ImpVec3){0.0f, -1.0f, 0.0f},
                          10.0f, NULL, &hit, &any));
    EXPECT(any && hit.body.index == boxes[0].index && fabsf(hit.point.y - 1.0f) < 1e-3f);
    EXPECT(fabsf(hit.normal.y - 1.0f) < 1e-3f && fabsf(hit.distance - 4.0f) < 1e-3f);
    /* Excluding the box's body, the ray reaches the ground. */
    ImpQueryFilter filter = imp_default_query_filter();
    filter.exclude_body = boxes[0];
    OK(imp_world_cast_ray(world, (ImpVec3){0.0f, 5.0f, 0.0f}, (ImpVec3){0.0f, -1.0f, 0.0f},
                          10.0f, &filter, &hit, &any));
    EXPECT(any && fabsf(hit.point.y) < 1e-3f);
    /* Missing: nothing hit. */
    OK(imp_world_cast_ray(world, (ImpVec3){0.0f, 5.0f, 0.0f}, (ImpVec3){0.0f, 1.0f, 0.0f}, 10.0f,
                          NULL, &hit, &any));
    EXPECT(!any);
    STATUS(imp_world_cast_ray(world, (ImpVec3){0.0f, 5.0f, 0.0f}, (ImpVec3){0.0f, 0.0f, 0.0f},
                              10.0f, NULL, &hit, &any),
           IMP_ERR_INVALID_INPUT);
    /* All hits along a horizontal ray through the three boxes. */
    Hits hits = {0, {0, 0}};
    OK(imp_world_cast_ray_all(world, (ImpVec3){-5.0f, 0.5f, 0.0f}, (ImpVec3){1.0f, 0.0f, 0.0f},
                              20.0f, NULL, count_ray_hits, &hits));
    EXPECT(hits.count == 3);
    STATUS(imp_world_cast_ray_all(world, (ImpVec3){-5.0f, 0.5f, 0.0f},
                                  (ImpVec3){1.0f, 0.0f, 0.0f}, 20.0f, NULL, NULL, &hits),
           IMP_ERR_NULL_POINTER);

    /* A sphere swept down onto the middle box. */
    ImpQueryShape sphere = {IMP_SHAPE_SPHERE, 0.25f, 0.0f, {0.0f, 0.0f, 0.0f}, NULL, 0};
    ImpTransform from = {{3.0f, 5.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 1.0f}};
    ImpShapeHit shape_hit;
    OK(imp_world_cast_shape(world, &sphere, from, (ImpVec3){0.0f, -10.0f, 0.0f}, NULL, &shape_hit,
                            &any));
    EXPECT(any && shape_hit.body.index == boxes[1].index);
    EXPECT(fabsf(shape_hit.fraction - 0.375f) < 0.01f);
    ImpQueryShape mesh_query = sphere;
    mesh_query.shape_type = IMP_SHAPE_MESH;
    STATUS(imp_world_cast_shape(world, &mesh_query, from, (ImpVec3){0.0f, -1.0f, 0.0f}, NULL,
                                &shape_hit, &any),
           IMP_ERR_UNSUPPORTED);
    mesh_query.shape_type = 42;
    STATUS(imp_world_overlap_shape(world, &mesh_query, from, NULL, count_shapes, &hits),
           IMP_ERR_INVALID_ENUM);

    /* Overlaps: a box around the first two boxes, a point inside the third, a hull. */
    hits.count = 0;
    ImpAabb aabb = {{-1.0f, 0.2f, -1.0f}, {4.0f, 0.8f, 1.0f}};
    OK(imp_world_overlap_aabb(world, aabb, NULL, count_shapes, &hits));
    EXPECT(hits.count == 2);
    hits.count = 0;
    OK(imp_world_overlap_aabb(world, aabb, NULL, stop_at_first, &hits));
    EXPECT(hits.count == 1);
    /* A predicate dropping the first one. */
    ImpShapeId skip = hits.first;
    filter = imp_default_query_filter();
    filter.predicate = not_this_shape;
    filter.context = &skip;
    hits.count = 0;
    OK(imp_world_overlap_aabb(world, aabb, &filter, count_shapes, &hits));
    EXPECT(hits.count == 1 && hits.first.index != skip.index);
    hits.count = 0;
    OK(imp_world_overlap_point(world, (ImpVec3){6.0f, 0.5f, 0.0f}, NULL, count_shapes, &hits));
    EXPECT(hits.count == 1);
    ImpVec3 pts[4] = {{0.0f, 0.0f, 0.0f}, {0.4f, 0.0f, 0.0f}, {0.0f, 0.4f, 0.0f}, {0.0f, 0.0f, 0.4f}};
    ImpQueryShape hull = {IMP_SHAPE_HULL, 0.0f, 0.0f, {0.0f, 0.0f, 0.0f}, pts, 4};
    ImpTransform at = {{6.0f, 0.4f, 0.0f}, {0.0f, 0.0f, 0.0f, 1.0f}};
    hits.count = 0;
    OK(imp_world_overlap_shape(world, &hull, at, NULL, count_shapes, &hits));
    EXPECT(hits.count == 1);
    /* A mask that sees no category. */
    filter = imp_default_query_filter();
    filter.mask = 0;
    hits.count = 0;
    OK(imp_world_overlap_aabb(world, aabb, &filter, count_shapes, &hits));
    EXPECT(hits.count == 0);
    OK(imp_world_destroy(world));
}

static ImpWorldId busy_world;
static ImpStatus inner_status = IMP_OK;
static int filter_calls = 0;
static int modifier_calls = 0;

static bool pair_filter(ImpShapeId a, ImpShapeId b, void *context) {
    (void)a;
    (void)b;
    int *calls = context;
    ++*calls;
    /* Calling back into the world that is stepping is refused, not a deadlock. */
    inner_status = imp_world_step(busy_world, dt);
    return true;
}

static void modifier(const ImpContactInfo *info, ImpContactSettings *settings, void *context) {
    int *calls = context;
    ++*calls;
    if (info->point_count > 0 && info->points != NULL) {
        settings->restitution = 0.0f;
        settings->friction = 0.1f;
    }
}

static void events_and_callbacks(void) {
    ImpWorldId world = new_world(false);
    busy_world = world;
    OK(imp_world_set_pair_filter(world, pair_filter, &filter_calls));
    OK(imp_world_set_contact_modifier(world, modifier, &modifier_calls));
    ImpBodyId ground = static_ground(world);
    ImpShapeDef loud = imp_default_shape_def();
    loud.enable_hit_events = true;
    loud.enable_contact_modifier = true;
    ImpBodyId box = dynamic_box(world, (ImpVec3){0.0f, 2.0f, 0.0f}, &loud);
    /* A sensor the box falls through, on a static body. */
    ImpBodyDef sensor_def = imp_default_body_def();
    sensor_def.body_type = IMP_BODY_STATIC;
    sensor_def.position = (ImpVec3){0.0f, 1.5f, 0.0f};
    ImpBodyId sensor_body;
    OK(imp_body_create(world, &sensor_def, &sensor_body));
    ImpShapeDef sensor = imp_default_shape_def();
    sensor.is_sensor = true;
    ImpShapeId sensor_shape;
    OK(imp_shape_create_box(world, sensor_body, &sensor, (ImpVec3){1.0f, 0.1f, 1.0f},
                            &sensor_shape));
    /* A joint that breaks: a box hung from a static body by a weak ball joint. */
    ImpBodyDef hook_def = imp_default_body_def();
    hook_def.body_type = IMP_BODY_STATIC;
    hook_def.position = (ImpVec3){5.0f, 5.0f, 0.0f};
    ImpBodyId hook;
    OK(imp_body_create(world, &hook_def, &hook));
    ImpBodyId weight = dynamic_box(world, (ImpVec3){5.0f, 4.0f, 0.0f}, NULL);
    ImpJointDef weak = imp_default_joint_def();
    weak.body_a = hook;
    weak.body_b = weight;
    weak.break_impulse = 1.0f;
    OK(imp_joint_def_set_world_frame(world, &weak, (ImpVec3){5.0f, 4.5f, 0.0f},
                                     (ImpVec3){0.0f, 0.0f, 0.0f}));
    ImpJointId weak_joint;
    OK(imp_joint_create(world, &weak, &weak_joint));

    int begins = 0, hit_events = 0, sensor_begins = 0, breaks = 0, moves = 0;
    for (int i = 0; i < 90; ++i) {
        OK(imp_world_step(world, dt));
        ImpContactTouchView begin;
        OK(imp_world_get_contact_begin_events(world, &begin));
        ImpContactHitView hitv;
        OK(imp_world_get_contact_hit_events(world, &hitv));
        ImpSensorEventView sensorv;
        OK(imp_world_get_sensor_begin_events(world, &sensorv));
        ImpJointBreakView breakv;
        OK(imp_world_get_joint_break_events(world, &breakv));
        ImpBodyMoveView movev;
        OK(imp_world_get_body_move_events(world, &movev));
        EXPECT((begin.count == 0) == (begin.items == NULL));
        begins += (int)begin.count;
        hit_events += (int)hitv.count;
        sensor_begins += (int)sensorv.count;
        breaks += (int)breakv.count;
        moves += (int)movev.count;
        if (begin.count > 0) {
            /* The views stay valid until the next step: copy the records, call into the
             * world (read events again, query, create and remove a body, read the body
             * moves), and find the same pointer and the same records. */
            ImpContactTouch copy[8];
            uint32_t n = begin.count < 8 ? begin.count : 8;
            memcpy(copy, begin.items, n * sizeof(ImpContactTouch));
            const ImpContactTouch *before = begin.items;
            ImpBodyId extra = dynamic_box(world, (ImpVec3){-5.0f, 0.5f, 0.0f}, NULL);
            ImpRayHit rh;
            bool any;
            OK(imp_world_cast_ray(world, (ImpVec3){0.0f, 5.0f, 0.0f},
                                  (ImpVec3){0.0f, -1.0f, 0.0f}, 10.0f, NULL, &rh, &any));
            OK(imp_body_destroy(world, extra));
            ImpContactTouchView again;
            OK(imp_world_get_contact_begin_events(world, &again));
            EXPECT(again.items == before && again.count == begin.count);
            EXPECT(memcmp(copy, begin.items, n * sizeof(ImpContactTouch)) == 0);
            ImpBodyMoveView moves_again;
            OK(imp_world_get_body_move_events(world, &moves_again));
            EXPECT(moves_again.items == movev.items && moves_again.count == movev.count);
            for (uint32_t k = 0; k < begin.count; ++k) {
                EXPECT(begin.items[k].shape_a.generation != 0);
                EXPECT(begin.items[k].body_a.generation != 0);
            }
        }
        for (uint32_t k = 0; k < hitv.count; ++k) {
            EXPECT(hitv.items[k].approach_speed > 1.0f);
        }
        for (uint32_t k = 0; k < sensorv.count; ++k) {
            EXPECT(sensorv.items[k].sensor.index == sensor_shape.index);
            EXPECT(sensorv.items[k].visitor_body.index == box.index);
        }
        for (uint32_t k = 0; k < breakv.count; ++k) {
            EXPECT(breakv.items[k].joint.index == weak_joint.index);
            EXPECT(breakv.items[k].impulse > 0.0f);
        }
        for (uint32_t k = 0; k < movev.count; ++k) {
            EXPECT(isfinite(movev.items[k].transform.p.y));
        }
    }
    EXPECT(begins >= 1 && hit_events >= 1 && sensor_begins == 1 && breaks == 1 && moves > 0);
    STATUS(imp_joint_destroy(world, weak_joint), IMP_ERR_STALE_ID);
    EXPECT(filter_calls > 0 && modifier_calls > 0);
    EXPECT(inner_status == IMP_ERR_BUSY);
    OK(imp_world_set_pair_filter(world, NULL, NULL));
    OK(imp_world_set_contact_modifier(world, NULL, NULL));
    (void)ground;
    OK(imp_world_destroy(world));
}

static void sleep_and_bodies(void) {
    ImpWorldId world = new_world(true);
    static_ground(world);
    ImpBodyId box = dynamic_box(world, (ImpVec3){0.0f, 0.5f, 0.0f}, NULL);
    bool awake = false;
    OK(imp_body_is_awake(world, box, &awake));
    EXPECT(awake);
    for (int i = 0; i < 120; ++i) {
        OK(imp_world_step(world, dt));
    }
    OK(imp_body_is_awake(world, box, &awake));
    EXPECT(!awake);
    uint32_t islands, sleeping;
    OK(imp_world_get_sleep_counts(world, &islands, &sleeping));
    EXPECT(sleeping == 1);
    OK(imp_body_apply_linear_impulse(world, box, (ImpVec3){0.0f, 2000.0f, 0.0f},
                                     (ImpVec3){0.0f, 0.5f, 0.0f}));
    OK(imp_body_is_awake(world, box, &awake));
    EXPECT(awake);
    OK(imp_body_set_awake(world, box, false));
    OK(imp_body_is_awake(world, box, &awake));
    EXPECT(!awake);

    /* Getters and setters. */
    float mass;
    OK(imp_body_get_mass(world, box, &mass));
    EXPECT(fabsf(mass - 1000.0f) < 0.1f);
    OK(imp_body_set_mass(world, box, 10.0f, (ImpVec3){1.0f, 1.0f, 1.0f}));
    OK(imp_body_get_mass(world, box, &mass));
    EXPECT(mass == 10.0f);
    ImpBodyType type;
    OK(imp_body_get_type(world, box, &type));
    EXPECT(type == IMP_BODY_DYNAMIC);
    OK(imp_body_set_transform(world, box, (ImpVec3){1.0f, 3.0f, 0.0f},
                              (ImpQuat){0.0f, 0.0f, 0.0f, 1.0f}));
    ImpTransform xf;
    OK(imp_body_get_transform(world, box, &xf));
    EXPECT(xf.p.x == 1.0f && xf.p.y == 3.0f);
    OK(imp_body_set_linear_velocity(world, box, (ImpVec3){0.0f, 1.0f, 0.0f}));
    ImpVec3 v;
    OK(imp_body_get_linear_velocity(world, box, &v));
    EXPECT(v.y == 1.0f);
    OK(imp_body_set_angular_velocity(world, box, (ImpVec3){0.0f, 0.5f, 0.0f}));
    OK(imp_body_get_angular_velocity(world, box, &v));
    EXPECT(v.y == 0.5f);
    OK(imp_body_apply_force(world, box, (ImpVec3){1.0f, 0.0f, 0.0f}, (ImpVec3){1.0f, 3.0f, 0.0f}));
    OK(imp_body_apply_force_to_center(world, box, (ImpVec3){1.0f, 0.0f, 0.0f}));
    OK(imp_body_apply_torque(world, box, (ImpVec3){0.0f, 1.0f, 0.0f}));
    OK(imp_body_apply_angular_impulse(world, box, (ImpVec3){0.0f, 1.0f, 0.0f}));
    OK(imp_body_set_gravity_scale(world, box, 0.5f));
    OK(imp_body_set_damping(world, box, 0.1f, 0.1f));
    OK(imp_body_set_bullet(world, box, true));
    bool bullet = false;
    OK(imp_body_is_bullet(world, box, &bullet));
    EXPECT(bullet);
    OK(imp_body_set_drag_coefficient(world, box, 1.05f));
    float cd;
    OK(imp_body_get_drag_coefficient(world, box, &cd));
    EXPECT(cd == 1.05f);
    STATUS(imp_body_set_damping(world, box, -1.0f, 0.0f), IMP_ERR_INVALID_INPUT);
    ImpBodyDef kin_def = imp_default_body_def();
    kin_def.body_type = IMP_BODY_KINEMATIC;
    kin_def.user_data = 42;
    ImpBodyId kin;
    OK(imp_body_create(world, &kin_def, &kin));
    uint64_t user;
    OK(imp_body_get_user_data(world, kin, &user));
    EXPECT(user == 42);
    ImpTransform target = {{0.0f, 1.0f, 5.0f}, {0.0f, 0.0f, 0.0f, 1.0f}};
    OK(imp_body_set_target_transform(world, kin, target));
    OK(imp_world_step(world, dt));
    OK(imp_body_get_position(world, kin, &v));
    EXPECT(fabsf(v.z - 5.0f) < 1e-4f);
    ImpVec3 g;
    OK(imp_world_set_gravity(world, (ImpVec3){0.0f, -1.0f, 0.0f}));
    OK(imp_world_get_gravity(world, &g));
    EXPECT(g.y == -1.0f);
    uint32_t workers;
    OK(imp_world_get_worker_count(world, &workers));
    EXPECT(workers == 1);
    double ms;
    OK(imp_world_get_step_ms(world, &ms));
    EXPECT(ms >= 0.0);
    OK(imp_world_destroy(world));
}

static void stepper(void) {
    ImpWorldId world = new_world(false);
    static_ground(world);
    ImpBodyId box = dynamic_box(world, (ImpVec3){0.0f, 3.0f, 0.0f}, NULL);
    ImpAdvance advance;
    STATUS(imp_world_advance(world, 0.01f, &advance), IMP_ERR_UNSUPPORTED);
    STATUS(imp_world_enable_stepper(world, -60.0f), IMP_ERR_INVALID_INPUT);
    OK(imp_world_enable_stepper(world, 60.0f));
    STATUS(imp_world_enable_stepper(world, 60.0f), IMP_ERR_UNSUPPORTED);
    OK(imp_world_set_max_steps(world, 4));
    int steps = 0;
    for (int i = 0; i < 144; ++i) {
        OK(imp_world_advance(world, 1.0f / 144.0f, &advance));
        EXPECT(advance.alpha >= 0.0f && advance.alpha < 1.0f);
        steps += (int)advance.steps;
        ImpTransform pose;
        OK(imp_body_get_interpolated_transform(world, box, &pose));
        EXPECT(pose.p.y <= 3.0f && pose.p.y > 0.0f);
    }
    uint64_t total;
    double time;
    OK(imp_world_get_stepper_time(world, &total, &time));
    EXPECT(steps == 60 && total == 60 && fabs(time - 1.0) < 1e-6);
    /* The world's own calls still work on a stepped world. */
    ImpVec3 p;
    OK(imp_body_get_position(world, box, &p));
    EXPECT(p.y < 3.0f);
    OK(imp_world_destroy(world));
}

static uint64_t hash_after(ImpWorldId world, int steps) {
    for (int i = 0; i < steps; ++i) {
        OK(imp_world_step(world, dt));
    }
    uint64_t hash;
    OK(imp_world_get_state_hash(world, &hash));
    return hash;
}

static void snapshots(void) {
    ImpWorldId world = new_world(false);
    static_ground(world);
    for (int i = 0; i < 5; ++i) {
        dynamic_box(world, (ImpVec3){0.1f * (float)i, 0.5f + 1.1f * (float)i, 0.0f}, NULL);
    }
    hash_after(world, 20);
    size_t size = 0;
    OK(imp_world_save_state(world, NULL, 0, &size));
    EXPECT(size > 0);
    uint8_t *state = malloc(size);
    EXPECT(state != NULL);
    size_t small = 0;
    STATUS(imp_world_save_state(world, state, size - 1, &small), IMP_ERR_BUFFER_TOO_SMALL);
    EXPECT(small == size);
    OK(imp_world_save_state(world, state, size, &size));
    size_t image_size = 0;
    OK(imp_world_save_image(world, NULL, 0, &image_size));
    uint8_t *image = malloc(image_size);
    EXPECT(image != NULL);
    OK(imp_world_save_image(world, image, image_size, &image_size));

    uint64_t straight = hash_after(world, 30);
    OK(imp_world_restore_state(world, state, size));
    uint64_t resumed = hash_after(world, 30);
    EXPECT(straight == resumed);
    ImpWorldId copy;
    OK(imp_world_create_from_image(image, image_size, 1, &copy));
    EXPECT(hash_after(copy, 30) == straight);
    OK(imp_world_destroy(copy));

    /* Corrupt bytes are refused and leave the world as it was. */
    uint64_t before, after;
    OK(imp_world_get_state_hash(world, &before));
    state[size / 2] ^= 0x5A;
    state[size - 1] ^= 0xFF;
    EXPECT(imp_world_restore_state(world, state, size / 2) == IMP_ERR_INVALID_INPUT);
    STATUS(imp_world_restore_state(world, NULL, 0), IMP_ERR_NULL_POINTER);
    OK(imp_world_get_state_hash(world, &after));
    EXPECT(before == after);
    STATUS(imp_world_create_from_image(image, image_size / 3, 1, &copy), IMP_ERR_INVALID_INPUT);
    free(state);
    free(image);
    OK(imp_world_destroy(world));
}

/* The plane normal . x = offset: with normal (0, 1, 0) and offset 1 the ground's top is
 * y = 1, and a ball of radius 0.5 comes to rest on it at y = 1.5. */
static void plane_offset(void) {
    ImpWorldId world = new_world(false);
    ImpBodyDef static_def = imp_default_body_def();
    static_def.body_type = IMP_BODY_STATIC;
    ImpBodyId ground;
    OK(imp_body_create(world, &static_def, &ground));
    ImpShapeDef def = imp_default_shape_def();
    ImpShapeId plane, shape;
    OK(imp_shape_create_plane(world, ground, &def, (ImpVec3){0.0f, 1.0f, 0.0f}, 1.0f, &plane));
    ImpBodyDef ball_def = imp_default_body_def();
    ball_def.position = (ImpVec3){0.0f, 3.0f, 0.0f};
    ImpBodyId ball;
    OK(imp_body_create(world, &ball_def, &ball));
    OK(imp_shape_create_sphere(world, ball, &def, 0.5f, &shape));
    for (int i = 0; i < 120; ++i) {
        OK(imp_world_step(world, dt));
    }
    ImpVec3 p;
    OK(imp_body_get_position(world, ball, &p));
    EXPECT(fabsf(p.y - 1.5f) < 0.01f);
    OK(imp_world_destroy(world));
}

/* What imp_world_debug_draw handed over, told apart by the options' colours. */
typedef struct Drawn {
    ImpDebugDrawOptions options;
    int lines, awake_lines, normal_lines, up_normals, points, corner_points, boxes, texts;
    float edge_error; /* the largest |length - 1 m| of the box's edges */
    ImpWorldId world; /* when set, the line callback calls into it */
    ImpStatus inner;
} Drawn;

static bool same_color(ImpColor a, ImpColor b) {
    return a.r == b.r && a.g == b.g && a.b == b.b && a.a == b.a;
}

static void on_line(ImpVec3 a, ImpVec3 b, ImpColor color, void *context) {
    Drawn *d = context;
    ++d->lines;
    ImpVec3 v = {b.x - a.x, b.y - a.y, b.z - a.z};
    float length = sqrtf(v.x * v.x + v.y * v.y + v.z * v.z);
    if (same_color(color, d->options.palette.awake)) {
        ++d->awake_lines;
        d->edge_error = fmaxf(d->edge_error, fabsf(length - 1.0f));
    }
    if (same_color(color, d->options.palette.contact_normal)) {
        ++d->normal_lines;
        if (fabsf(length - d->options.normal_length) < 1e-4f && v.y > 0.999f * length) {
            ++d->up_normals;
        }
    }
    if (d->world.generation != 0) {
        /* Calling back into the world that is drawing is refused, not a deadlock. */
        d->inner = imp_world_step(d->world, dt);
    }
}

static void on_point(ImpVec3 p, float size, ImpColor color, void *context) {
    Drawn *d = context;
    (void)size;
    ++d->points;
    /* A contact point at a bottom corner of the box, on the ground. */
    if (same_color(color, d->options.palette.contact_point) && fabsf(p.y) < 0.02f &&
        fabsf(fabsf(p.x) - 0.5f) < 0.02f && fabsf(fabsf(p.z) - 0.5f) < 0.02f) {
        ++d->corner_points;
    }
}

static void on_box(ImpTransform transform, ImpVec3 half_extents, ImpColor color, void *context) {
    Drawn *d = context;
    (void)color;
    if (fabsf(transform.p.y - 0.5f) < 0.01f && half_extents.x == 0.5f) {
        ++d->boxes;
    }
}

static void on_text(ImpVec3 position, const char *text, ImpColor color, void *context) {
    Drawn *d = context;
    (void)position;
    (void)color;
    if (strncmp(text, "body ", 5) == 0) {
        ++d->texts;
    }
}

static void reset(Drawn *d) {
    ImpDebugDrawOptions options = d->options;
    memset(d, 0, sizeof *d);
    d->options = options;
}

/* A 1 m box resting on a plane: 12 edges through lines alone, 4 contact points at its
 * bottom corners with upward normals; a box through draw_box; the filters, the region,
 * the errors, and a callback calling into the world. */
static void debug_draw(void) {
    ImpWorldId world = new_world(false);
    ImpBodyDef static_def = imp_default_body_def();
    static_def.body_type = IMP_BODY_STATIC;
    ImpBodyId ground;
    OK(imp_body_create(world, &static_def, &ground));
    ImpShapeDef def = imp_default_shape_def();
    ImpShapeId plane;
    OK(imp_shape_create_plane(world, ground, &def, (ImpVec3){0.0f, 1.0f, 0.0f}, 0.0f, &plane));
    dynamic_box(world, (ImpVec3){0.0f, 0.5f, 0.0f}, NULL);
    for (int i = 0; i < 60; ++i) {
        OK(imp_world_step(world, dt));
    }

    Drawn drawn;
    memset(&drawn, 0, sizeof drawn);
    drawn.options = imp_default_debug_draw_options();
    drawn.options.static_bodies = false;
    drawn.options.contact_points = true;
    drawn.options.contact_normals = true;
    ImpDebugDraw draw;
    memset(&draw, 0, sizeof draw);
    draw.draw_line = on_line;
    draw.draw_point = on_point;
    draw.context = &drawn;
    OK(imp_world_debug_draw(world, &draw, &drawn.options));
    EXPECT(drawn.awake_lines == 12 && drawn.edge_error < 1e-4f);
    EXPECT(drawn.points == 4 && drawn.corner_points == 4);
    EXPECT(drawn.normal_lines == 4 && drawn.up_normals == 4);
    EXPECT(drawn.lines == 16);

    /* With draw_box the box comes whole; labels through draw_text. */
    draw.draw_box = on_box;
    draw.draw_text = on_text;
    drawn.options.contact_points = false;
    drawn.options.contact_normals = false;
    drawn.options.labels = true;
    reset(&drawn);
    OK(imp_world_debug_draw(world, &draw, &drawn.options));
    EXPECT(drawn.boxes == 1 && drawn.lines == 0 && drawn.texts == 1);

    /* Null options: the defaults, the ground's square and normal included. */
    reset(&drawn);
    OK(imp_world_debug_draw(world, &draw, NULL));
    EXPECT(drawn.boxes == 1 && drawn.lines == 5);

    /* A region far away draws nothing. */
    drawn.options.use_region = true;
    drawn.options.region = (ImpAabb){{50.0f, 50.0f, 50.0f}, {60.0f, 60.0f, 60.0f}};
    reset(&drawn);
    OK(imp_world_debug_draw(world, &draw, &drawn.options));
    EXPECT(drawn.boxes == 0 && drawn.lines == 0 && drawn.texts == 0);

    /* Errors: a null drawer, an inverted or non-finite region, options not from their
     * default function; nothing is drawn. */
    STATUS(imp_world_debug_draw(world, NULL, NULL), IMP_ERR_NULL_POINTER);
    ERROR_NAMES("draw");
    drawn.options.region.min.x = 70.0f;
    STATUS(imp_world_debug_draw(world, &draw, &drawn.options), IMP_ERR_INVALID_INPUT);
    ERROR_NAMES("region");
    drawn.options.region.min.x = NAN;
    STATUS(imp_world_debug_draw(world, &draw, &drawn.options), IMP_ERR_INVALID_INPUT);
    ERROR_NAMES("region");
    drawn.options.use_region = false;
    drawn.options.normal_length = -1.0f;
    STATUS(imp_world_debug_draw(world, &draw, &drawn.options), IMP_ERR_INVALID_INPUT);
    ERROR_NAMES("normal_length");
    ImpDebugDrawOptions zero;
    memset(&zero, 0, sizeof zero);
    STATUS(imp_world_debug_draw(world, &draw, &zero), IMP_ERR_BAD_DEF);
    ERROR_NAMES("ImpDebugDrawOptions");
    EXPECT(drawn.boxes == 0 && drawn.lines == 0 && drawn.texts == 0);

    /* A drawing function calling into the world it is drawing gets IMP_ERR_BUSY. */
    reset(&drawn);
    drawn.world = world;
    OK(imp_world_debug_draw(world, &draw, NULL));
    EXPECT(drawn.lines == 5 && drawn.inner == IMP_ERR_BUSY);
    OK(imp_world_destroy(world));
}

int main(void) {
    abi_and_errors();
    every_shape_kind();
    every_joint_kind();
    queries();
    events_and_callbacks();
    sleep_and_bodies();
    stepper();
    snapshots();
    plane_offset();
    debug_draw();
    printf("api_test: %d checks passed\n", checks);
    return 0;
}
