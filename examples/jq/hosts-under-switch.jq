# The hosts (CAs) cabled to one switch, given by its name (as `ibscan nodes`
# shows it, or its short name: leaf01 of "MF0;leaf01:MSB7800/U1", the form
# Mellanox switches and the demo fabric use) or its GUID; each once, sorted:
#   ibscan topology --json | jq -r --arg switch leaf01 -f hosts-under-switch.jq
(.nodes | map({key: (.index | tostring), value: .}) | from_entries) as $by
| [ .nodes[]
    | select(.type == "switch" and (.name == $switch or .guid == $switch
        or ((.name | capture("^[^;]*;(?<n>[^:]*)") | .n) // "") == $switch))
    | .ports[]
    | select(.peer != null)
    | $by[.peer.index | tostring]
    | select(.type == "ca")
    | .name ]
| unique[]
