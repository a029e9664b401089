/*
 * lib/util: the smallest pieces every other part of libhmn builds on —
 * strings that live as long as their owner (arena.h), growable arrays,
 * text as a terminal may show it (text.h), the one decimal parser
 * (number.h), the one clock (clock.h), sorted pid sets (pid-set.h), lists
 * of file names (names.h) and the memory budget (hmn-common.h). Pure C
 * and the C library: nothing here includes another folder of lib/, and
 * only the clock asks the OS anything (its one call on each OS, the
 * monotonic and the wall clock: clock.c).
 */
#ifndef HMN_UTIL_H
#define HMN_UTIL_H

#include <stdio.h> /* mingw's __MINGW_PRINTF_FORMAT */

/* mingw checks formats against Microsoft's printf unless told it is the C99 one we build with. */
#ifdef __MINGW_PRINTF_FORMAT
#define HMN_PRINTF(f, a) __attribute__((format(__MINGW_PRINTF_FORMAT, f, a)))
#else
#define HMN_PRINTF(f, a) __attribute__((format(printf, f, a)))
#endif

#endif
