package dev.rpcrdma.handlers.interop;

import java.util.concurrent.TimeUnit;

/** The VM's kernel nfsd, as the interop tests that start it leave it. */
final class KernelNfsd {
    private KernelNfsd() {
    }

    /**
     * Stops the kernel's nfsd (its RDMA listener included), so the VM stage's device resources are back at their
     * baseline whichever module runs next. Only in the VM stage: a host's own nfsd is never touched.
     */
    static void stopInVm() throws Exception {
        if (System.getenv("VM_RDMA_ADDR") == null) {
            return;
        }
        Process p = new ProcessBuilder("sh", "-c",
                "if [ -w /proc/fs/nfsd/threads ]; then echo 0 > /proc/fs/nfsd/threads; fi").inheritIO().start();
        p.waitFor(60, TimeUnit.SECONDS);
    }
}
