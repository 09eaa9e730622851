# ibscan local --check --profile: an 8-rail H100 (or B200) server, DGX-like.
# Eight 400G RoCE rails (one ConnectX-7 per GPU), two 200G storage ports
# that NCCL must not use. `ibscan local --nccl-env --profile` this file
# then prints NCCL_IB_HCA with the eight rails only.
#
# The rails, as device patterns (fnmatch: mlx5_[3-9]) or DEV:PORT.
rails mlx5_0 mlx5_[3-9]
# Checked (state, GUIDs, PCIe), but not rails: not in NCCL_IB_HCA.
storage mlx5_1 mlx5_2
# All eight must be ACTIVE and LinkUp, at 400 Gb/s or more, RoCE.
ports 8
min-rate 400
link-layer Ethernet
# The RoCE v2 IPv4 GID every rail must have at this index (NCCL_IB_GID_INDEX).
# Leave it out to accept whatever index the rails share.
gid-index 3
# Optional: the firmware every rail must run (default: the rails agree).
# firmware 28.39.1002
# NCCL's bootstrap interface (default: the rails' netdevs).
# socket-ifname =eno1
# PCIe training and NUMA checks (default yes).
pcie yes
numa yes
