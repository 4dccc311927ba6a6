#!/bin/sh
# Starts the Linux kernel NFS server with an RPC-over-RDMA listener on port 20049, for the interop tests.
# Only for the Soft-RoCE VM (tools/vm/run): it loads kernel modules and mounts file systems. Idempotent.
# Needs only rpcbind (lockd registers with it) besides the kernel; no nfs-utils, no exports (NULL needs none).
set -e
if [ -z "$VM_RDMA_ADDR" ]; then echo "not in the RDMA VM: refusing to start a kernel NFS server" >&2; exit 2; fi
if ! grep -q "rdma 20049" /proc/fs/nfsd/portlist 2>/dev/null; then
  mkdir -p /run/rpcbind
  pidof rpcbind >/dev/null 2>&1 || rpcbind -w
  modprobe nfsd
  modprobe rpcrdma
  grep -q " /proc/fs/nfsd " /proc/mounts || mount -t nfsd nfsd /proc/fs/nfsd
  echo 10 > /proc/fs/nfsd/nfsv4gracetime
  echo 10 > /proc/fs/nfsd/nfsv4leasetime
  echo "+3 -4" > /proc/fs/nfsd/versions
  echo "rdma 20049" > /proc/fs/nfsd/portlist
  echo 4 > /proc/fs/nfsd/threads
fi
cat /proc/fs/nfsd/portlist
