/*
 * The one clock (lib/util/clock.c), in one unit: microseconds. Every
 * deadline, duration and interval in libhmn and the hmn tool is counted in
 * it; only what is shown or parsed speaks milliseconds or seconds.
 */
#ifndef HMN_UTIL_CLOCK_H
#define HMN_UTIL_CLOCK_H

#include <stdint.h>

#define CLOCK_US_PER_MS 1000u
#define CLOCK_US_PER_S 1000000u

/* Now, on a monotonic clock (Windows': it goes on while the machine sleeps). */
uint64_t clock_us(void);
/* Now, since the epoch (UTC): what a driver stamps times in (NVML's process start times). */
uint64_t clock_wall_us(void);

#endif
