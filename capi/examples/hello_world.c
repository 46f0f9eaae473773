/* Hello world: a box falls onto the ground; prints its height every half second. */
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

int main(void) {
    CHECK(IMP_ABI_CHECK());

    ImpWorldDef world_def = imp_default_world_def();
    world_def.worker_count = 1;
    ImpWorldId world;
    CHECK(imp_world_create(&world_def, &world));

    /* The ground: a static box whose top face is at y = 0. */
    ImpBodyDef ground_def = imp_default_body_def();
    ground_def.body_type = IMP_BODY_STATIC;
    ground_def.position = (ImpVec3){0.0f, -1.0f, 0.0f};
    ImpBodyId ground;
    CHECK(imp_body_create(world, &ground_def, &ground));
    ImpShapeDef shape_def = imp_default_shape_def();
    ImpShapeId ground_shape;
    CHECK(imp_shape_create_box(world, ground, &shape_def, (ImpVec3){50.0f, 1.0f, 50.0f},
                               &ground_shape));

    /* A 1 m box 4 m up. */
    ImpBodyDef box_def = imp_default_body_def();
    box_def.position = (ImpVec3){0.0f, 4.0f, 0.0f};
    ImpBodyId box;
    CHECK(imp_body_create(world, &box_def, &box));
    ImpShapeId box_shape;
    CHECK(imp_shape_create_box(world, box, &shape_def, (ImpVec3){0.5f, 0.5f, 0.5f}, &box_shape));

    for (int i = 1; i <= 120; ++i) {
        CHECK(imp_world_step(world, 1.0f / 60.0f));
        if (i % 30 == 0) {
            ImpVec3 p;
            CHECK(imp_body_get_position(world, box, &p));
            printf("t = %.2f s: box at y = %.3f m\n", (double)i / 60.0, (double)p.y);
        }
    }
    ImpVec3 p;
    CHECK(imp_body_get_position(world, box, &p));
    printf("the box rests at y = %.3f m\n", (double)p.y);
    CHECK(imp_world_destroy(world));
    return 0;
}
