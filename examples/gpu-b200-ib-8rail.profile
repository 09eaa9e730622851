# ibscan local --check --profile: an 8-rail B200 server on InfiniBand
# (ConnectX-7 or ConnectX-8 at NDR/XDR), with a BlueField storage and
# management NIC left out of NCCL.
rails mlx5_[0-7]
storage mlx5_8 mlx5_9
ignore mlx5_10
ports 8
min-rate 400
link-layer InfiniBand
pcie yes
numa yes
