/* The segmentation benches' robot user: the next state of a user's
 * scribbles, from the ground truth (128 = the unknown band) and the last
 * mask. Include after gcut.h. */
#ifndef GCUT_BENCH_ROBOT_USER_H
#define GCUT_BENCH_ROBOT_USER_H

#include <stddef.h>
#include <stdint.h>

/* A disk of the truth's label (radius `radius`, only on pixels the truth
 * gives that label) centred on a random mislabelled, unseeded pixel outside
 * the unknown band, drawn into `seeds`; 0 when no such pixel is left. *rs:
 * the caller's random state (a 64-bit LCG). */
static inline int bench_add_disk(uint64_t *rs, const uint8_t *truth, const uint8_t *mask,
                                 uint8_t *seeds, int w, int h, int radius)
{
    int64_t n = (int64_t)w * h, wrong = 0;
    for (int64_t i = 0; i < n; i++)
        wrong += truth[i] != 128 && (truth[i] > 128) != (mask[i] != 0) && !seeds[i];
    if (!wrong)
        return 0;
    *rs = *rs * 6364136223846793005ULL + 1442695040888963407ULL;
    int64_t pick = (int64_t)((*rs >> 11) % (uint64_t)wrong), at = -1;
    for (int64_t i = 0; i < n && at < 0; i++)
        if (truth[i] != 128 && (truth[i] > 128) != (mask[i] != 0) && !seeds[i] && pick-- == 0)
            at = i;
    int cx = (int)(at % w), cy = (int)(at / w);
    uint8_t label = truth[at] > 128 ? GCUT_SEED_FG : GCUT_SEED_BG;
    for (int y = cy - radius; y <= cy + radius; y++)
        for (int x = cx - radius; x <= cx + radius; x++) {
            size_t i = (size_t)y * w + x;
            if (x >= 0 && y >= 0 && x < w && y < h &&
                (x - cx) * (x - cx) + (y - cy) * (y - cy) <= radius * radius && truth[i] != 128 &&
                (truth[i] > 128) == (label == GCUT_SEED_FG))
                seeds[i] = label;
        }
    return 1;
}

#endif
