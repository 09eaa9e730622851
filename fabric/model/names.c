/* The words for PortInfo, NodeInfo and SMInfo codes (IBA 14.2.5), and back from a word to its code for the loaders. */
#include "names.h"
#include "../../core/mad/mad.h"

#include <string.h>
#include <strings.h>

const char *ibs_port_state_str(unsigned s)
{
	static const char *const v[] = {
		[IBS_PORT_NOP] = "NoChange",
		[IBS_PORT_DOWN] = "Down",
		[IBS_PORT_INIT] = "Init",
		[IBS_PORT_ARMED] = "Armed",
		[IBS_PORT_ACTIVE] = "Active",
	};
	return s <= IBS_PORT_ACTIVE ? v[s] : "Unknown";
}

const char *ibs_phys_state_str(unsigned s)
{
	static const char *const v[] = {
		[IBS_PHYS_NOP] = "NoChange",
		[IBS_PHYS_SLEEP] = "Sleep",
		[IBS_PHYS_POLLING] = "Polling",
		[IBS_PHYS_DISABLED] = "Disabled",
		[IBS_PHYS_TRAINING] = "PortConfigurationTraining",
		[IBS_PHYS_LINKUP] = "LinkUp",
		[IBS_PHYS_LINK_ERROR_RECOVERY] = "LinkErrorRecovery",
		[IBS_PHYS_PHY_TEST] = "PhyTest",
	};
	return s <= IBS_PHYS_PHY_TEST ? v[s] : "Unknown";
}

const char *ibs_width_str(unsigned w)
{
	switch (w) {
	case 1:
		return "1x";
	case 2:
		return "4x";
	case 4:
		return "8x";
	case 8:
		return "12x";
	case 16:
		return "2x";
	default:
		return "?";
	}
}

const unsigned ibs_ext_speeds[IBS_N_EXT_SPEEDS] = { IBS_SPEED_EXT_FDR10, 1, 2, 4, 8, IBS_SPEED_EXT_XDR };

const char *ibs_speed_str(unsigned speed, unsigned ext)
{
	switch (ext) {
	case IBS_SPEED_EXT_FDR10:
		return "FDR10";
	case 1:
		return "FDR";
	case 2:
		return "EDR";
	case 4:
		return "HDR";
	case 8:
		return "NDR";
	case IBS_SPEED_EXT_XDR:
		return "XDR";
	default:
		break;
	}
	switch (speed) {
	case 1:
		return "SDR";
	case 2:
		return "DDR";
	case 4:
		return "QDR";
	default:
		return "?";
	}
}

const char *ibs_node_type_str(unsigned t)
{
	switch (t) {
	case IBS_NODE_CA:
		return "ca";
	case IBS_NODE_SWITCH:
		return "switch";
	case IBS_NODE_ROUTER:
		return "router";
	default:
		return "unknown";
	}
}

const char *ibs_mtu_str(unsigned m)
{
	static const char *const v[] = { "?", "256", "512", "1024", "2048", "4096" };
	return m < 6 ? v[m] : "?";
}

const char *ibs_sm_state_str(unsigned s)
{
	static const char *const v[] = {
		[IBS_SM_NOT_ACTIVE] = "not-active",
		[IBS_SM_DISCOVERING] = "discovering",
		[IBS_SM_STANDBY] = "standby",
		[IBS_SM_MASTER] = "master",
	};
	return s <= IBS_SM_MASTER ? v[s] : "unknown";
}

unsigned ibs_port_state_code(const char *s)
{
	unsigned i;

	for (i = IBS_PORT_DOWN; i <= IBS_PORT_ACTIVE; i++)
		if (!strcmp(s, ibs_port_state_str(i)))
			return i;
	return 0;
}

unsigned ibs_phys_state_code(const char *s)
{
	unsigned i;

	for (i = IBS_PHYS_SLEEP; i <= IBS_PHYS_PHY_TEST; i++)
		if (!strcmp(s, ibs_phys_state_str(i)))
			return i;
	return 0;
}

unsigned ibs_width_code(const char *s)
{
	static const unsigned codes[] = { 1, 2, 4, 8, 16 };
	unsigned i;

	for (i = 0; i < 5; i++)
		if (!strcasecmp(s, ibs_width_str(codes[i])))
			return codes[i];
	return 0;
}

bool ibs_speed_code(const char *s, unsigned *speed, unsigned *ext)
{
	unsigned b, i;

	*speed = *ext = 0;
	for (b = 1; b <= 4; b <<= 1)
		if (!strcmp(s, ibs_speed_str(b, 0))) {
			*speed = b;
			return true;
		}
	for (i = 0; i < IBS_N_EXT_SPEEDS; i++)
		if (!strcmp(s, ibs_speed_str(0, ibs_ext_speeds[i]))) {
			*ext = ibs_ext_speeds[i];
			*speed = 4;
			return true;
		}
	return false;
}

unsigned ibs_node_type_code(const char *s)
{
	unsigned i;

	for (i = 1; i <= 3; i++)
		if (!strcmp(s, ibs_node_type_str(i)))
			return i;
	return 0;
}
