# Cabled links that carry no data: not Active (Init or Armed, the subnet
# manager has not finished with them):
#   ibscan links --json | jq -r -f links-not-active.jq
.links[]
| select(.state != "Active")
| "\(.a.name)[\(.a.port)] - \(.b.name)[\(.b.port)] \(.state)"
