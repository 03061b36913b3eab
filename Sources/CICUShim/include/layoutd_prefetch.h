/* layoutd_prefetch.h — a hint to the processor to start loading memory the engine will read
 * soon (the shape cache's slot for a word two ahead, and the entry of the next one, while the
 * current one is looked up). A prefetch is only a hint: it reads nothing the program sees,
 * never faults (any address will do) and may be ignored. Lives in the engine's one C shim target, beside the ICU calls. */
#ifndef LAYOUTD_PREFETCH_H
#define LAYOUTD_PREFETCH_H

/** Asks for the cache line holding `address` to be loaded for reading. */
static inline void ld_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }

/** Reads the 64-bit word at `address` (aligned) as a relaxed atomic load: for a look ahead
 *  at a slot another thread may be writing under its lock (its value then only a guess of
 *  which line to prefetch, never trusted). */
static inline unsigned long long ld_peek(const unsigned long long *address) {
    return __atomic_load_n(address, __ATOMIC_RELAXED);
}

#endif
