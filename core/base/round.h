/*
 * Measured figures carry what the measurement holds: a latency, a rate or a
 * quotient of them is rounded before it is shown, so that text and JSON
 * print the same digits and JSON does not print the 17 digits a computed
 * double needs to read back exactly. Counts are never rounded.
 */
#ifndef IBSCAN_ROUND_H
#define IBSCAN_ROUND_H

/*
 * v rounded to a multiple of 10^-decimals (decimals may be negative: -3
 * rounds to thousands), half away from zero, as the double nearest that
 * decimal, so the shortest form that reads back is the decimal itself.
 * NaN, infinities and 0 come back as they are.
 */
double ibs_round_dec(double v, int decimals);
/* v rounded to sig (>= 1) significant digits, the same way. */
double ibs_round_sig(double v, int sig);

#endif
