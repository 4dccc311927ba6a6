#!/bin/sh
# Exports a fresh tmpfs at $1 from the kernel NFS server WITHOUT nfs-utils: the entries mountd would write on
# upcall are written straight into the kernel's caches (client 192.0.2.1 -> domain rdmatest; export with
# fsid=7, no root squash; the fsid -> path map). Only for the Soft-RoCE VM. The root file handle is then
# {1, 0, 1, 0, 7, 0, 0, 0}: version 1, auth 0, FSID_NUM, FILEID_ROOT, fsid 7 (host order).
set -e
if [ -z "$VM_RDMA_ADDR" ]; then echo "not in the RDMA VM: refusing to export" >&2; exit 2; fi
dir=$1
mkdir -p "$dir"
grep -q " $dir tmpfs " /proc/mounts || mount -t tmpfs -o size=64m,mode=0777 tmpfs "$dir"
chmod 0777 "$dir"
never=2147483647
# NFSEXP_INSECURE_PORT 0x2 | NFSEXP_NOSUBTREECHECK 0x400 | NFSEXP_FSID 0x2000
echo "nfsd $VM_RDMA_ADDR $never rdmatest" > /proc/net/rpc/auth.unix.ip/channel
echo "rdmatest $dir $never 9218 65534 65534 7" > /proc/net/rpc/nfsd.export/channel
echo "rdmatest 1 \\x07000000 $never $dir" > /proc/net/rpc/nfsd.fh/channel
cat /proc/net/rpc/nfsd.export/content
