#!/bin/sh
# Starts (or restarts) the Linux kernel NFS server for NFSv4.1 on RPC-over-RDMA (20049) and TCP (2049), with
# NFSv3 kept on (LinuxKernelNfsdInteropTest shares the server), and exports a fresh tmpfs at $1 WITHOUT nfs-utils:
# the entries mountd would write on upcall go straight into the kernel's caches (client $VM_RDMA_ADDR -> domain
# rdmatest; export with fsid=41, no root squash; fsid 41 and fsid 0 -> the directory, fsid 0 being NFSv4's pseudo
# root, so PUTROOTFH lands on the export; fsid 7 stays export-knfsd-rdma.sh's). Only for the Soft-RoCE VM.
#
# Delegations: nfsd grants none while any lock manager of the namespace is in its grace period
# (nfs4_open_delegation -> locks_in_grace), and lockd, started with NFSv3, stays in grace for
# nlm_timeout x 5 = 50 s by default; nlm_grace_period=10 shortens it to 10 s, the NFSv4 grace is 10 s too.
# The lease is 30 s: a client that misses it becomes a "courtesy" client, whose delegations a conflict revokes
# instead of recalling (nfsd_break_deleg_cb -> try_to_expire_client).
# The server is restarted (threads 0) when it runs without NFSv4.1 or TCP so that both settings take effect.
set -e
if [ -z "$VM_RDMA_ADDR" ]; then echo "not in the RDMA VM: refusing to start a kernel NFS server" >&2; exit 2; fi
dir=$1
[ -n "$dir" ] || { echo "usage: $0 EXPORT_DIR" >&2; exit 2; }
mkdir -p /run/rpcbind
pidof rpcbind >/dev/null 2>&1 || rpcbind -w
modprobe nfsd
modprobe rpcrdma
modprobe lockd
grep -q " /proc/fs/nfsd " /proc/mounts || mount -t nfsd nfsd /proc/fs/nfsd
running=$(cat /proc/fs/nfsd/threads)
if [ "$running" != 0 ]; then
  if ! grep -q "+4.1" /proc/fs/nfsd/versions || ! grep -q "^tcp 2049" /proc/fs/nfsd/portlist; then
    echo 0 > /proc/fs/nfsd/threads
    running=0
  fi
fi
if [ "$running" = 0 ]; then
  echo 10 > /proc/sys/fs/nfs/nlm_grace_period
  echo 10 > /proc/fs/nfsd/nfsv4gracetime
  echo 30 > /proc/fs/nfsd/nfsv4leasetime
  echo "+3 +4 +4.1" > /proc/fs/nfsd/versions
  grep -q "rdma 20049" /proc/fs/nfsd/portlist 2>/dev/null || echo "rdma 20049" > /proc/fs/nfsd/portlist
  grep -q "^tcp 2049" /proc/fs/nfsd/portlist 2>/dev/null || echo "tcp 2049" > /proc/fs/nfsd/portlist
  echo 4 > /proc/fs/nfsd/threads
  date +%s > /run/knfsd-v41-started
fi
mkdir -p "$dir"
grep -q " $dir tmpfs " /proc/mounts || mount -t tmpfs -o size=64m,mode=0777 tmpfs "$dir"
chmod 0777 "$dir"
never=2147483647
# NFSEXP_INSECURE_PORT 0x2 | NFSEXP_NOSUBTREECHECK 0x400 | NFSEXP_FSID 0x2000
echo "nfsd $VM_RDMA_ADDR $never rdmatest" > /proc/net/rpc/auth.unix.ip/channel
echo "rdmatest $dir $never 9218 65534 65534 41" > /proc/net/rpc/nfsd.export/channel
echo "rdmatest 1 \\x29000000 $never $dir" > /proc/net/rpc/nfsd.fh/channel
echo "rdmatest 1 \\x00000000 $never $dir" > /proc/net/rpc/nfsd.fh/channel
echo "versions: $(cat /proc/fs/nfsd/versions)"
echo "started: $(cat /run/knfsd-v41-started)"
echo "now: $(date +%s)"
cat /proc/fs/nfsd/portlist
