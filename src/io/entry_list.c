/* The readers' growing entry list (entry_list.h). */
#include "io/entry_list.h"

#include <stdlib.h>
#include <string.h>

static int resize(gcut__entries *e, int64_t room)
{
    int32_t **arrays[3] = {&e->row, &e->col, &e->cost};
    for (int k = 0; k < (e->with_cost ? 3 : 2); k++) {
        int32_t *p = realloc(*arrays[k], (size_t)room * sizeof(int32_t));
        if (!p)
            return -1;
        *arrays[k] = p;
    }
    e->room = room;
    return 0;
}

int gcut__entries_init(gcut__entries *e, int with_cost, int64_t expect)
{
    memset(e, 0, sizeof *e);
    e->with_cost = with_cost;
    int64_t room = expect < 1024 ? 1024 : expect > (1 << 20) ? (1 << 20) : expect;
    return resize(e, room);
}

int gcut__entries_push(gcut__entries *e, int32_t row, int32_t col, int32_t cost)
{
    if (e->n == e->room && resize(e, e->room * 2))
        return -1;
    e->row[e->n] = row;
    e->col[e->n] = col;
    if (e->with_cost)
        e->cost[e->n] = cost;
    e->n++;
    return 0;
}

void gcut__entries_free(gcut__entries *e)
{
    free(e->row);
    free(e->col);
    free(e->cost);
    memset(e, 0, sizeof *e);
}
