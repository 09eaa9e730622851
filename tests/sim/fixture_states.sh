# shellcheck shell=bash
# The simulator states that fixtures/captures/ were recorded in, for
# tools/fixtures/record-fixtures.sh (which records each) and tests/sim/t_golden_ibnd.sh
# (which checks each golden topology against ibnetdiscover in the same
# state). Needs simlib.sh sourced and FABRICS set.
#
# fixture_states VISIT: bring the simulator into each state in turn and run
# `VISIT NAME [ibscan options...]` there (NAME is the capture's name; the
# options are those it is recorded with).
fixture_states() {
	local visit=$1 f
	for f in net.2sw2path4hca fattree2-small dualrail fattree3 degraded director bigswitch41; do
		sim_start "$FABRICS/$f"
		"$visit" "$f"
		sim_stop
	done

	sim_start "$FABRICS/net.2sw2path4hca"
	sim_console 'Unlink "Switch1"[3]' >/dev/null
	sim_console 'Unlink "Switch1"[5]' >/dev/null
	"$visit" cable-pulled
	sim_stop

	sim_start "$FABRICS/fattree2-small"
	sim_console 'Error "S-spine01" 10' >/dev/null
	sim_console 'Error "S-leaf02" 10' >/dev/null
	"$visit" dropped --retries 3
	sim_stop

	sim_start "$FABRICS/net.2sw2path4hca"
	sim_console 'Error "Switch2" 100' >/dev/null
	"$visit" dead-switch --retries 1
	sim_stop

	sim_start "$FABRICS/net.2sw2path4hca"
	sim_console 'PerformanceSet "Switch1"[1] PortCounters.SymbolErrorCounter=5000' >/dev/null
	sim_console 'PerformanceSet "Switch2"[3] PortCounters.LinkDownedCounter=40' >/dev/null
	sim_console 'PerformanceSet "Hca2"[1] PortCounters.PortRcvErrors=777' >/dev/null
	# Why it counted (PortRcvErrorDetails, read where PortRcvErrors moved; never reset by ibscan).
	sim_console 'PerformanceSet "Hca2"[1] PortRcvErrorDetails.PortLocalPhysicalErrors=700' >/dev/null
	sim_console 'PerformanceSet "Hca2"[1] PortRcvErrorDetails.PortMalformedPacketErrors=77' >/dev/null
	sim_console 'PerformanceSet "Hca3"[1] PortCounters.PortXmitWait=123456' >/dev/null
	# On which VLs it waited (PortVLXmitWaitCounters, read where PortXmitWait moved).
	sim_console 'PerformanceSet "Hca3"[1] PortVLXmitWaitCounters.PortVLXmitWaitCounters0=1000' >/dev/null
	sim_console 'PerformanceSet "Hca3"[1] PortVLXmitWaitCounters.PortVLXmitWaitCounters3=456' >/dev/null
	sim_console 'PerformanceSet "Hca3"[1] PortVLXmitWaitCounters.PortVLXmitWaitCounters15=65535' >/dev/null
	"$visit" counters --reset-counters # reset, so the later captures show only their own fault
	sim_console 'Guid "Hca4" 0x0000000000100000' >/dev/null
	"$visit" dup-guid
	sim_console 'Guid "Hca4" 0x0000000000100009' >/dev/null
	sim_console 'Baselid "Hca2"[1] 2' >/dev/null
	"$visit" dup-lid
	sim_console 'Baselid "Hca2"[1] 4' >/dev/null
	sim_console 'Unlink "Switch1"[1]' >/dev/null
	sim_console 'Link "Switch1"[4] "Hca1"[1]' >/dev/null || true # ibsim may say "can't link" and link anyway
	sim_poll 30 _fixture_port_active Switch1 4
	"$visit" moved
	sim_stop_opensm
	"$visit" no-sm --timeout 200 --retries 1
	sim_console 'Unlink "Switch1"[4]' >/dev/null
	sim_console 'Link "Switch1"[1] "Hca1"[1]' >/dev/null || true
	"$visit" port-init --timeout 200 --retries 1
	sim_stop
}

_fixture_port_active() { [ "$(sim_port_state "$1" "$2")" = "Active/LinkUp" ]; }
