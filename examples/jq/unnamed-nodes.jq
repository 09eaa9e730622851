# Nodes the node-name map does not name (their name is still their
# description, or their GUID when they have none), to complete the map:
#   ibscan nodes --json --node-name-map /etc/ib-node-name-map | jq -r -f unnamed-nodes.jq
.nodes[]
| select(.name == .description or .name == .guid)
| "\(.guid) \(.type) \(.description // "")"
