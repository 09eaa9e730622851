/* Names of MAD classes, methods, attributes and statuses, as captures and messages write them (IBA 13.4). */
#include "mad.h"

const char *ibs_outcome_str(enum ibs_outcome o)
{
	switch (o) {
	case IBS_MAD_OK:
		return "ok";
	case IBS_MAD_STATUS:
		return "bad status";
	case IBS_MAD_TIMEOUT:
		return "timeout";
	case IBS_MAD_MALFORMED:
		return "malformed response";
	case IBS_MAD_ABORTED:
		return "aborted";
	case IBS_MAD_SEND_FAILED:
		return "send failed";
	}
	return "unknown";
}

const char *ibs_mad_status_str(uint16_t status)
{
	/* IBA 13.4.7, table 132: bits 2-4 code, bit 0 busy, bit 1 redirect. */
	if (status == 0)
		return "success";
	if (status & 0x1)
		return "busy";
	if (status & 0x2)
		return "redirect required";
	switch ((status >> 2) & 0x7) {
	case 1:
		return "bad version";
	case 2:
		return "method not supported";
	case 3:
		return "method/attribute not supported";
	case 7:
		return "invalid attribute or modifier";
	default:
		break;
	}
	if (status >> 8)
		return "class-specific error";
	return "reserved status";
}

const char *ibs_class_name(uint8_t c)
{
	switch (c) {
	case IBS_CLASS_SMI:
		return "SMI";
	case IBS_CLASS_SMI_DR:
		return "SMI-DR";
	case IBS_CLASS_SA:
		return "SA";
	case IBS_CLASS_PMA:
		return "PMA";
	default:
		return "class";
	}
}

const char *ibs_method_name(uint8_t m)
{
	switch (m) {
	case IBS_METHOD_GET:
		return "Get";
	case IBS_METHOD_SET:
		return "Set";
	case IBS_METHOD_GET_RESP:
		return "GetResp";
	case IBS_METHOD_GET_TABLE:
		return "GetTable";
	case IBS_METHOD_GET_TABLE_RESP:
		return "GetTableResp";
	default:
		return "method";
	}
}

const char *ibs_attr_name(uint8_t c, uint16_t a)
{
	if (c == IBS_CLASS_SMI || c == IBS_CLASS_SMI_DR) {
		switch (a) {
		case IBS_ATTR_NODE_DESC:
			return "NodeDescription";
		case IBS_ATTR_NODE_INFO:
			return "NodeInfo";
		case IBS_ATTR_SWITCH_INFO:
			return "SwitchInfo";
		case IBS_ATTR_GUID_INFO:
			return "GUIDInfo";
		case IBS_ATTR_PORT_INFO:
			return "PortInfo";
		case IBS_ATTR_LFT:
			return "LinearForwardingTable";
		case IBS_ATTR_SL2VL:
			return "SLtoVLMappingTable";
		case IBS_ATTR_SM_INFO:
			return "SMInfo";
		case IBS_ATTR_MLNX_EXT_PORT_INFO:
			return "MlnxExtPortInfo";
		}
	} else if (c == IBS_CLASS_PMA) {
		switch (a) {
		case IBS_ATTR_CLASS_PORT_INFO:
			return "ClassPortInfo";
		case IBS_ATTR_PORT_COUNTERS:
			return "PortCounters";
		case IBS_ATTR_PORT_COUNTERS_EXT:
			return "PortCountersExtended";
		case IBS_ATTR_PORT_RCV_ERROR_DETAILS:
			return "PortRcvErrorDetails";
		case IBS_ATTR_PORT_XMIT_DISCARD_DETAILS:
			return "PortXmitDiscardDetails";
		case IBS_ATTR_PORT_VL_XMIT_WAIT:
			return "PortVLXmitWaitCounters";
		case IBS_ATTR_PORT_SAMPLES_CONTROL:
			return "PortSamplesControl";
		}
	} else if (c == IBS_CLASS_SA) {
		switch (a) {
		case IBS_ATTR_CLASS_PORT_INFO:
			return "ClassPortInfo";
		case IBS_ATTR_SA_PATH_RECORD:
			return "PathRecord";
		}
	}
	return "attribute";
}
