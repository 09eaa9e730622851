# Links running below the best rate both of their ends could run
# ("degraded": true), with what is short, width or speed:
#   ibscan links --json | jq -r -f degraded-links.jq
.links[]
| select(.degraded)
| "\(.a.name)[\(.a.port)] - \(.b.name)[\(.b.port)] \(.width) \(.speed) (\(.degraded_by))"
