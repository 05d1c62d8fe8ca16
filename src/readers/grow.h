/* Arrays that grow with their input (issue 31: no silent caps). What
 * bounds them is the input itself: a file past its size cap is malformed
 * (README, Files others write) and a directory lists what the kernel has. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ITEMS (of *CAP elements of SIZE bytes) with room for NEED: the same
 * array, or a bigger one (doubling, so N appends cost O(N)), or NULL when
 * out of memory (ITEMS is then still valid and owned by the caller). */
static inline void *jd_grow(void *items, size_t *cap, size_t need, size_t size)
{
        if (need <= *cap)
                return items;
        size_t c = *cap ? *cap : 8;
        while (c < need) {
                if (c > SIZE_MAX / 2 / size)
                        return NULL;
                c *= 2;
        }
        void *p = realloc(items, c * size);
        if (!p)
                return NULL;
        *cap = c;
        return p;
}

/* A copy of N elements of SIZE bytes; NULL for none, or out of memory
 * (*OK false then). */
static inline void *jd_memdup(const void *items, size_t n, size_t size, bool *ok)
{
        if (!n || !items)
                return NULL;
        void *p = malloc(n * size);
        if (p)
                memcpy(p, items, n * size);
        else
                *ok = false;
        return p;
}
