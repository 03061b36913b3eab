/* layoutd_prefetch.h — a hint to the processor to start loading memory the engine will read
 * soon (the shape cache's slot for the next word while the current one is looked up).
 * Only a hint: it reads nothing the program sees, never faults (any address will do) and
 * may be ignored. Lives in the engine's one C shim target, beside the ICU calls. */
#ifndef LAYOUTD_PREFETCH_H
#define LAYOUTD_PREFETCH_H

/** Asks for the cache line holding `address` to be loaded for reading. */
static inline void ld_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }

#endif
