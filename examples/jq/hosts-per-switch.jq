# Every switch with the number of hosts (CA ports) cabled to it, to spot a
# leaf with a missing or extra cable:
#   ibscan topology --json | jq -r -f hosts-per-switch.jq
(.nodes | map({key: (.index | tostring), value: .}) | from_entries) as $by
| .nodes[]
| select(.type == "switch")
| "\(.name) \([.ports[] | select(.peer != null and $by[.peer.index | tostring].type == "ca")] | length)"
