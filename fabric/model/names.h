/*
 * The words ibscan prints for PortInfo, NodeInfo and SMInfo codes (IBA
 * 14.2.5), and the reverse, from a word back to its code, for the loaders
 * of saved topologies. Pure functions of the code: no model involved.
 */
#ifndef IBSCAN_NAMES_H
#define IBSCAN_NAMES_H

#include <stdbool.h>

/* Decoding of PortInfo codes into words (IBA 14.2.5.6). */
const char *ibs_port_state_str(unsigned state);
const char *ibs_phys_state_str(unsigned phys);
const char *ibs_width_str(unsigned width);     /* one active width code: "4x" */
/* Active speed name, using the extended speed when there is one: "SDR" ... "XDR". */
const char *ibs_speed_str(unsigned speed, unsigned speed_ext);
/*
 * The extended speed codes, slowest first: FDR10 64, FDR 1, EDR 2, HDR 4,
 * NDR 8, XDR 32 (see IBS_SPEED_EXT_FDR10 and IBS_SPEED_EXT_XDR).
 */
#define IBS_N_EXT_SPEEDS 6
extern const unsigned ibs_ext_speeds[IBS_N_EXT_SPEEDS];
const char *ibs_node_type_str(unsigned type);   /* "switch", "ca", "router" */
const char *ibs_mtu_str(unsigned mtu);
const char *ibs_sm_state_str(unsigned state);

/* Reverse of the *_str functions, for loading saved topologies; 0 when unknown. */
unsigned ibs_port_state_code(const char *s);
unsigned ibs_phys_state_code(const char *s);
unsigned ibs_width_code(const char *s);
/* "SDR".."QDR" set *speed, "FDR".."XDR" set *ext; false when unknown. */
bool ibs_speed_code(const char *s, unsigned *speed, unsigned *ext);
unsigned ibs_node_type_code(const char *s);

#endif
