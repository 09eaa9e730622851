/* Rounding measured figures to what they hold (round.h). */
#include "round.h"

#include <math.h>

/* 10^n for 0 <= n <= 22 is exact in a double: the scaling adds no error of its own. */
static double pow10i(int n)
{
	double p = 1;

	while (n-- > 0)
		p *= 10;
	return p;
}

double ibs_round_dec(double v, int decimals)
{
	double p;

	if (v == 0 || !isfinite(v) || decimals > 300 || decimals < -300)
		return v;
	/* Divide by the exact power rather than multiply by an inexact 10^-n. */
	if (decimals >= 0) {
		p = decimals <= 22 ? pow10i(decimals) : pow(10, decimals);
		if (!isfinite(v * p))
			return v;
		return round(v * p) / p;
	}
	p = -decimals <= 22 ? pow10i(-decimals) : pow(10, -decimals);
	return round(v / p) * p;
}

double ibs_round_sig(double v, int sig)
{
	if (v == 0 || !isfinite(v))
		return v;
	if (sig < 1)
		sig = 1;
	return ibs_round_dec(v, sig - 1 - (int)floor(log10(fabs(v))));
}
