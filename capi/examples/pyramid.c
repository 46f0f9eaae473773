/* A flat pyramid of unit boxes (base 40, 820 boxes) on a ground box: the same bodies, in
 * the same order, with the same settings as impetus-bench's `pyramid` scene, so its state
 * hash after N steps is the benchmark's. Prints a timing line (ms/step) and the hash.
 *
 *   pyramid [steps = 300] [threads = 1] */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "impetus.h"

#define CHECK(call)                                                                     \
    do {                                                                                \
        ImpStatus status_ = (call);                                                     \
        if (status_ != IMP_OK) {                                                        \
            fprintf(stderr, "%s failed (%d): %s\n", #call, (int)status_, imp_last_error()); \
            return 1;                                                                   \
        }                                                                               \
    } while (0)

static double now_ms(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1.0e6;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One box of the scene: a body at `position` with a box of `half` extents. */
static ImpStatus add_box(ImpWorldId world, ImpBodyType type, ImpVec3 position, ImpVec3 half,
                         float density) {
    ImpBodyDef body_def = imp_default_body_def();
    body_def.body_type = type;
    body_def.position = position;
    ImpBodyId body;
    ImpStatus status = imp_body_create(world, &body_def, &body);
    if (status != IMP_OK) {
        return status;
    }
    ImpShapeDef shape_def = imp_default_shape_def();
    shape_def.density = density;
    shape_def.friction = 0.6f;
    shape_def.restitution = 0.0f;
    ImpShapeId shape;
    return imp_shape_create_box(world, body, &shape_def, half, &shape);
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 300;
    int threads = argc > 2 ? atoi(argv[2]) : 1;
    if (steps < 1 || threads < 0) {
        fprintf(stderr, "usage: pyramid [steps >= 1] [threads >= 0]\n");
        return 2;
    }
    CHECK(IMP_ABI_CHECK());

    /* The benchmark's world: gravity 10, sleep off (every step does the full work). */
    ImpWorldDef def = imp_default_world_def();
    def.gravity = (ImpVec3){0.0f, -10.0f, 0.0f};
    def.substeps = 4;
    def.contact_hertz = 30.0f;
    def.contact_damping_ratio = 10.0f;
    def.max_push_speed = 3.0f;
    def.linear_slop = 0.005f;
    def.speculative_distance = 0.02f;
    def.worker_count = (uint32_t)threads;
    def.enable_sleep = false;
    ImpWorldId world;
    CHECK(imp_world_create(&def, &world));

    /* Ground: half extents (100, 1, 100), top face at y = 0. */
    CHECK(add_box(world, IMP_BODY_STATIC, (ImpVec3){0.0f, -1.0f, 0.0f},
                  (ImpVec3){100.0f, 1.0f, 100.0f}, 0.0f));
    /* Row i at y = i + 0.5, box j = i..base-1 at x = j - i/2 - (base - 1)/2. */
    const int base = 40;
    const float half = ((float)base - 1.0f) * 0.5f;
    for (int i = 0; i < base; ++i) {
        for (int j = i; j < base; ++j) {
            float x = (float)j - 0.5f * (float)i - half;
            CHECK(add_box(world, IMP_BODY_DYNAMIC, (ImpVec3){x, (float)i + 0.5f, 0.0f},
                          (ImpVec3){0.5f, 0.5f, 0.5f}, 100.0f));
        }
    }

    /* The benchmark's warm-up: 60 steps for runs longer than 120, else 1 (none for 1). */
    int warmup = steps > 120 ? 60 : (steps > 1 ? 1 : 0);
    double *times = malloc(sizeof(double) * (size_t)steps);
    if (times == NULL) {
        return 1;
    }
    int timed = 0;
    double total = 0.0;
    for (int s = 0; s < steps; ++s) {
        double t = now_ms();
        CHECK(imp_world_step(world, 1.0f / 60.0f));
        double ms = now_ms() - t;
        if (s >= warmup) {
            times[timed++] = ms;
            total += ms;
        }
    }
    qsort(times, (size_t)timed, sizeof(double), compare);
    double median = timed % 2 ? times[timed / 2] : 0.5 * (times[timed / 2 - 1] + times[timed / 2]);
    uint32_t workers;
    CHECK(imp_world_get_worker_count(world, &workers));
    uint64_t hash;
    CHECK(imp_world_get_state_hash(world, &hash));
    printf("pyramid (C): %d steps, %u threads, median %.3f ms/step, mean %.3f ms/step\n", steps,
           workers, median, total / timed);
    printf("state hash %016" PRIx64 "\n", hash);
    free(times);
    CHECK(imp_world_destroy(world));
    return 0;
}
