/* Memory hints Swift has no spelling for. */
#include <stdint.h>

/* Asks the CPU to start loading the cache line at `address` for reading. Only a hint: the
   address is never dereferenced, so any value, even a stale or invalid one, is harmless. */
static inline void layoutd_prefetch(uintptr_t address) {
    __builtin_prefetch((const void *)address, 0, 3);
}
