#!/bin/bash
# The test tools themselves: the ibnetdiscover and ibscan normalizers agree on samples.
exec bash "$(dirname "$0")/../sim/test_norm.sh"
