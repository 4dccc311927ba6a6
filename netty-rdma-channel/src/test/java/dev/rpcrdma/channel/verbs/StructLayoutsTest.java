package dev.rpcrdma.channel.verbs;

import dev.rpcrdma.channel.fabric.AccessFlags;
import dev.rpcrdma.channel.fabric.QpState;
import dev.rpcrdma.channel.fabric.SendFlags;
import dev.rpcrdma.channel.fabric.WcFlags;
import dev.rpcrdma.channel.fabric.WcOpcode;
import dev.rpcrdma.channel.fabric.WcStatus;
import dev.rpcrdma.channel.fabric.WrOpcode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks every offset/size constant in {@link IbvLayouts} and {@link RdmaCmLayouts} and every enum constant in
 * {@link IbvConstants}, {@link RdmaCmConstants} and the fabric SPI's constant classes against the installed rdma-core headers: compiles a C program
 * with gcc that prints {@code offsetof}/{@code sizeof}/the enum values, runs it and compares. Needs no RDMA
 * device. Skips (loudly) when gcc or the headers are missing.
 */
class StructLayoutsTest {
    static final String INSTALL = "apt-get install -y gcc libc6-dev libibverbs-dev librdmacm-dev";

    /** Java constant ("Nested.FIELD") -> C expression. */
    private static final Map<String, String> LAYOUTS = new LinkedHashMap<>();

    static {
        off("IbvDevice.NODE_TYPE", "ibv_device", "node_type");
        off("IbvDevice.TRANSPORT_TYPE", "ibv_device", "transport_type");
        off("IbvContext.DEVICE", "ibv_context", "device");
        off("IbvContext.OPS_ALLOC_MW", "ibv_context", "ops.alloc_mw");
        off("IbvContext.OPS_DEALLOC_MW", "ibv_context", "ops.dealloc_mw");
        off("IbvContext.OPS_POLL_CQ", "ibv_context", "ops.poll_cq");
        off("IbvContext.OPS_REQ_NOTIFY_CQ", "ibv_context", "ops.req_notify_cq");
        off("IbvContext.OPS_POST_SEND", "ibv_context", "ops.post_send");
        off("IbvContext.OPS_POST_RECV", "ibv_context", "ops.post_recv");
        off("IbvContext.OPS_POST_SRQ_RECV", "ibv_context", "ops.post_srq_recv");
        off("IbvContext.NUM_COMP_VECTORS", "ibv_context", "num_comp_vectors");

        off("IbvPd.CONTEXT", "ibv_pd", "context");
        off("IbvPd.HANDLE", "ibv_pd", "handle");

        off("IbvMr.CONTEXT", "ibv_mr", "context");
        off("IbvMr.PD", "ibv_mr", "pd");
        off("IbvMr.ADDR", "ibv_mr", "addr");
        off("IbvMr.LENGTH", "ibv_mr", "length");
        off("IbvMr.HANDLE", "ibv_mr", "handle");
        off("IbvMr.LKEY", "ibv_mr", "lkey");
        off("IbvMr.RKEY", "ibv_mr", "rkey");
        size("IbvMr.SIZE", "ibv_mr");

        off("IbvMw.CONTEXT", "ibv_mw", "context");
        off("IbvMw.PD", "ibv_mw", "pd");
        off("IbvMw.RKEY", "ibv_mw", "rkey");
        off("IbvMw.HANDLE", "ibv_mw", "handle");
        off("IbvMw.TYPE", "ibv_mw", "type");
        size("IbvMw.SIZE", "ibv_mw");

        off("IbvCq.CONTEXT", "ibv_cq", "context");
        off("IbvCq.CHANNEL", "ibv_cq", "channel");
        off("IbvCq.CQ_CONTEXT", "ibv_cq", "cq_context");
        off("IbvCq.HANDLE", "ibv_cq", "handle");
        off("IbvCq.CQE", "ibv_cq", "cqe");

        off("IbvCompChannel.CONTEXT", "ibv_comp_channel", "context");
        off("IbvCompChannel.FD", "ibv_comp_channel", "fd");
        off("IbvCompChannel.REFCNT", "ibv_comp_channel", "refcnt");
        size("IbvCompChannel.SIZE", "ibv_comp_channel");

        off("IbvQp.CONTEXT", "ibv_qp", "context");
        off("IbvQp.QP_CONTEXT", "ibv_qp", "qp_context");
        off("IbvQp.PD", "ibv_qp", "pd");
        off("IbvQp.SEND_CQ", "ibv_qp", "send_cq");
        off("IbvQp.RECV_CQ", "ibv_qp", "recv_cq");
        off("IbvQp.SRQ", "ibv_qp", "srq");
        off("IbvQp.HANDLE", "ibv_qp", "handle");
        off("IbvQp.QP_NUM", "ibv_qp", "qp_num");
        off("IbvQp.STATE", "ibv_qp", "state");
        off("IbvQp.QP_TYPE", "ibv_qp", "qp_type");

        off("IbvSge.ADDR", "ibv_sge", "addr");
        off("IbvSge.LENGTH", "ibv_sge", "length");
        off("IbvSge.LKEY", "ibv_sge", "lkey");
        size("IbvSge.SIZE", "ibv_sge");

        off("IbvSendWr.WR_ID", "ibv_send_wr", "wr_id");
        off("IbvSendWr.NEXT", "ibv_send_wr", "next");
        off("IbvSendWr.SG_LIST", "ibv_send_wr", "sg_list");
        off("IbvSendWr.NUM_SGE", "ibv_send_wr", "num_sge");
        off("IbvSendWr.OPCODE", "ibv_send_wr", "opcode");
        off("IbvSendWr.SEND_FLAGS", "ibv_send_wr", "send_flags");
        off("IbvSendWr.IMM_DATA", "ibv_send_wr", "imm_data");
        off("IbvSendWr.INVALIDATE_RKEY", "ibv_send_wr", "invalidate_rkey");
        off("IbvSendWr.RDMA_REMOTE_ADDR", "ibv_send_wr", "wr.rdma.remote_addr");
        off("IbvSendWr.RDMA_RKEY", "ibv_send_wr", "wr.rdma.rkey");
        off("IbvSendWr.BIND_MW_MW", "ibv_send_wr", "bind_mw.mw");
        off("IbvSendWr.BIND_MW_RKEY", "ibv_send_wr", "bind_mw.rkey");
        off("IbvSendWr.BIND_MW_BIND_INFO_MR", "ibv_send_wr", "bind_mw.bind_info.mr");
        off("IbvSendWr.BIND_MW_BIND_INFO_ADDR", "ibv_send_wr", "bind_mw.bind_info.addr");
        off("IbvSendWr.BIND_MW_BIND_INFO_LENGTH", "ibv_send_wr", "bind_mw.bind_info.length");
        off("IbvSendWr.BIND_MW_BIND_INFO_MW_ACCESS_FLAGS", "ibv_send_wr", "bind_mw.bind_info.mw_access_flags");
        size("IbvSendWr.SIZE", "ibv_send_wr");

        off("IbvRecvWr.WR_ID", "ibv_recv_wr", "wr_id");
        off("IbvRecvWr.NEXT", "ibv_recv_wr", "next");
        off("IbvRecvWr.SG_LIST", "ibv_recv_wr", "sg_list");
        off("IbvRecvWr.NUM_SGE", "ibv_recv_wr", "num_sge");
        size("IbvRecvWr.SIZE", "ibv_recv_wr");

        off("IbvWc.WR_ID", "ibv_wc", "wr_id");
        off("IbvWc.STATUS", "ibv_wc", "status");
        off("IbvWc.OPCODE", "ibv_wc", "opcode");
        off("IbvWc.VENDOR_ERR", "ibv_wc", "vendor_err");
        off("IbvWc.BYTE_LEN", "ibv_wc", "byte_len");
        off("IbvWc.IMM_DATA", "ibv_wc", "imm_data");
        off("IbvWc.INVALIDATED_RKEY", "ibv_wc", "invalidated_rkey");
        off("IbvWc.QP_NUM", "ibv_wc", "qp_num");
        off("IbvWc.SRC_QP", "ibv_wc", "src_qp");
        off("IbvWc.WC_FLAGS", "ibv_wc", "wc_flags");
        off("IbvWc.PKEY_INDEX", "ibv_wc", "pkey_index");
        off("IbvWc.SLID", "ibv_wc", "slid");
        off("IbvWc.SL", "ibv_wc", "sl");
        off("IbvWc.DLID_PATH_BITS", "ibv_wc", "dlid_path_bits");
        size("IbvWc.SIZE", "ibv_wc");

        off("IbvQpCap.MAX_SEND_WR", "ibv_qp_cap", "max_send_wr");
        off("IbvQpCap.MAX_RECV_WR", "ibv_qp_cap", "max_recv_wr");
        off("IbvQpCap.MAX_SEND_SGE", "ibv_qp_cap", "max_send_sge");
        off("IbvQpCap.MAX_RECV_SGE", "ibv_qp_cap", "max_recv_sge");
        off("IbvQpCap.MAX_INLINE_DATA", "ibv_qp_cap", "max_inline_data");
        size("IbvQpCap.SIZE", "ibv_qp_cap");

        off("IbvSrq.CONTEXT", "ibv_srq", "context");
        off("IbvSrqInitAttr.MAX_WR", "ibv_srq_init_attr", "attr.max_wr");
        off("IbvSrqInitAttr.MAX_SGE", "ibv_srq_init_attr", "attr.max_sge");
        off("IbvSrqInitAttr.SRQ_LIMIT", "ibv_srq_init_attr", "attr.srq_limit");
        size("IbvSrqInitAttr.SIZE", "ibv_srq_init_attr");

        off("IbvQpInitAttr.QP_CONTEXT", "ibv_qp_init_attr", "qp_context");
        off("IbvQpInitAttr.SEND_CQ", "ibv_qp_init_attr", "send_cq");
        off("IbvQpInitAttr.RECV_CQ", "ibv_qp_init_attr", "recv_cq");
        off("IbvQpInitAttr.SRQ", "ibv_qp_init_attr", "srq");
        off("IbvQpInitAttr.CAP", "ibv_qp_init_attr", "cap");
        off("IbvQpInitAttr.QP_TYPE", "ibv_qp_init_attr", "qp_type");
        off("IbvQpInitAttr.SQ_SIG_ALL", "ibv_qp_init_attr", "sq_sig_all");
        size("IbvQpInitAttr.SIZE", "ibv_qp_init_attr");

        off("IbvQpAttr.QP_STATE", "ibv_qp_attr", "qp_state");
        off("IbvQpAttr.CUR_QP_STATE", "ibv_qp_attr", "cur_qp_state");
        size("IbvQpAttr.SIZE", "ibv_qp_attr");

        off("IbvDeviceAttr.FW_VER", "ibv_device_attr", "fw_ver");
        LAYOUTS.put("IbvDeviceAttr.FW_VER_LENGTH", "sizeof(((struct ibv_device_attr *) 0)->fw_ver)");
        off("IbvDeviceAttr.NODE_GUID", "ibv_device_attr", "node_guid");
        off("IbvDeviceAttr.MAX_MR_SIZE", "ibv_device_attr", "max_mr_size");
        off("IbvDeviceAttr.VENDOR_ID", "ibv_device_attr", "vendor_id");
        off("IbvDeviceAttr.VENDOR_PART_ID", "ibv_device_attr", "vendor_part_id");
        off("IbvDeviceAttr.MAX_QP", "ibv_device_attr", "max_qp");
        off("IbvDeviceAttr.MAX_QP_WR", "ibv_device_attr", "max_qp_wr");
        off("IbvDeviceAttr.DEVICE_CAP_FLAGS", "ibv_device_attr", "device_cap_flags");
        off("IbvDeviceAttr.MAX_SGE", "ibv_device_attr", "max_sge");
        off("IbvDeviceAttr.MAX_SGE_RD", "ibv_device_attr", "max_sge_rd");
        off("IbvDeviceAttr.MAX_CQE", "ibv_device_attr", "max_cqe");
        off("IbvDeviceAttr.MAX_MR", "ibv_device_attr", "max_mr");
        off("IbvDeviceAttr.MAX_PD", "ibv_device_attr", "max_pd");
        off("IbvDeviceAttr.MAX_QP_RD_ATOM", "ibv_device_attr", "max_qp_rd_atom");
        off("IbvDeviceAttr.MAX_QP_INIT_RD_ATOM", "ibv_device_attr", "max_qp_init_rd_atom");
        off("IbvDeviceAttr.MAX_MW", "ibv_device_attr", "max_mw");
        off("IbvDeviceAttr.PHYS_PORT_CNT", "ibv_device_attr", "phys_port_cnt");
        size("IbvDeviceAttr.SIZE", "ibv_device_attr");

        off("RdmaEventChannel.FD", "rdma_event_channel", "fd");

        off("RdmaCmId.VERBS", "rdma_cm_id", "verbs");
        off("RdmaCmId.CHANNEL", "rdma_cm_id", "channel");
        off("RdmaCmId.CONTEXT", "rdma_cm_id", "context");
        off("RdmaCmId.QP", "rdma_cm_id", "qp");
        off("RdmaCmId.ROUTE_ADDR_SRC_ADDR", "rdma_cm_id", "route.addr.src_addr");
        off("RdmaCmId.ROUTE_ADDR_DST_ADDR", "rdma_cm_id", "route.addr.dst_addr");
        off("RdmaCmId.PS", "rdma_cm_id", "ps");
        off("RdmaCmId.PORT_NUM", "rdma_cm_id", "port_num");
        off("RdmaCmId.EVENT", "rdma_cm_id", "event");
        off("RdmaCmId.SEND_CQ_CHANNEL", "rdma_cm_id", "send_cq_channel");
        off("RdmaCmId.SEND_CQ", "rdma_cm_id", "send_cq");
        off("RdmaCmId.RECV_CQ_CHANNEL", "rdma_cm_id", "recv_cq_channel");
        off("RdmaCmId.RECV_CQ", "rdma_cm_id", "recv_cq");
        off("RdmaCmId.SRQ", "rdma_cm_id", "srq");
        off("RdmaCmId.PD", "rdma_cm_id", "pd");
        off("RdmaCmId.QP_TYPE", "rdma_cm_id", "qp_type");
        size("RdmaCmId.SIZE", "rdma_cm_id");

        off("RdmaConnParam.PRIVATE_DATA", "rdma_conn_param", "private_data");
        off("RdmaConnParam.PRIVATE_DATA_LEN", "rdma_conn_param", "private_data_len");
        off("RdmaConnParam.RESPONDER_RESOURCES", "rdma_conn_param", "responder_resources");
        off("RdmaConnParam.INITIATOR_DEPTH", "rdma_conn_param", "initiator_depth");
        off("RdmaConnParam.FLOW_CONTROL", "rdma_conn_param", "flow_control");
        off("RdmaConnParam.RETRY_COUNT", "rdma_conn_param", "retry_count");
        off("RdmaConnParam.RNR_RETRY_COUNT", "rdma_conn_param", "rnr_retry_count");
        off("RdmaConnParam.SRQ", "rdma_conn_param", "srq");
        off("RdmaConnParam.QP_NUM", "rdma_conn_param", "qp_num");
        size("RdmaConnParam.SIZE", "rdma_conn_param");

        off("RdmaCmEvent.ID", "rdma_cm_event", "id");
        off("RdmaCmEvent.LISTEN_ID", "rdma_cm_event", "listen_id");
        off("RdmaCmEvent.EVENT", "rdma_cm_event", "event");
        off("RdmaCmEvent.STATUS", "rdma_cm_event", "status");
        off("RdmaCmEvent.PARAM_CONN", "rdma_cm_event", "param.conn");
        size("RdmaCmEvent.SIZE", "rdma_cm_event");

        off("SockaddrIn.SIN_FAMILY", "sockaddr_in", "sin_family");
        off("SockaddrIn.SIN_PORT", "sockaddr_in", "sin_port");
        off("SockaddrIn.SIN_ADDR", "sockaddr_in", "sin_addr");
        size("SockaddrIn.SIZE", "sockaddr_in");
        off("SockaddrIn6.SIN6_FAMILY", "sockaddr_in6", "sin6_family");
        off("SockaddrIn6.SIN6_PORT", "sockaddr_in6", "sin6_port");
        off("SockaddrIn6.SIN6_FLOWINFO", "sockaddr_in6", "sin6_flowinfo");
        off("SockaddrIn6.SIN6_ADDR", "sockaddr_in6", "sin6_addr");
        off("SockaddrIn6.SIN6_SCOPE_ID", "sockaddr_in6", "sin6_scope_id");
        size("SockaddrIn6.SIZE", "sockaddr_in6");
    }

    /** The SPI's constants (Java name to C expression) that the bindings pass to the library unchanged. */
    private static final Map<String, String> SPI_CONSTANTS = new LinkedHashMap<>();

    /** Each SPI constant class with the prefix its names carry in verbs.h. */
    private static final Map<Class<?>, String> SPI_CLASSES = new LinkedHashMap<>();

    static {
        SPI_CLASSES.put(AccessFlags.class, "IBV_ACCESS_");
        SPI_CLASSES.put(WrOpcode.class, "IBV_WR_");
        SPI_CLASSES.put(SendFlags.class, "IBV_SEND_");
        SPI_CLASSES.put(WcStatus.class, "IBV_WC_");
        SPI_CLASSES.put(WcOpcode.class, "IBV_WC_");
        SPI_CLASSES.put(WcFlags.class, "IBV_WC_");
        SPI_CLASSES.put(QpState.class, "IBV_QPS_");
        SPI_CLASSES.forEach((type, prefix) -> {
            for (Field f : constants(type)) {
                SPI_CONSTANTS.put(type.getSimpleName() + "." + f.getName(), prefix + f.getName());
            }
        });
    }

    @Test
    void theSpisConstantsAreTheHeadersValues() throws Exception {
        Map<String, Long> java = new TreeMap<>();
        SPI_CLASSES.forEach((type, prefix) -> {
            for (Field f : constants(type)) {
                try {
                    java.put(type.getSimpleName() + "." + f.getName(), f.getLong(null));
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
            }
        });
        assertEquals(5, java.keySet().stream().filter(k -> k.startsWith("AccessFlags.")).count(), "access flags");
        assertEquals(22, java.keySet().stream().filter(k -> k.startsWith("WcStatus.")).count(), "completion status");
        assertMatches(java);
    }

    private static void off(String javaName, String struct, String member) {
        LAYOUTS.put(javaName, "offsetof(struct " + struct + ", " + member + ")");
    }

    private static void size(String javaName, String struct) {
        LAYOUTS.put(javaName, "sizeof(struct " + struct + ")");
    }

    private static Map<String, Long> actual;

    @BeforeAll
    static void compileAndRun(@TempDir Path dir) throws Exception {
        String gcc = findOnPath("gcc");
        boolean headers = Files.exists(Path.of("/usr/include/infiniband/verbs.h"))
                && Files.exists(Path.of("/usr/include/rdma/rdma_cma.h"));
        if (gcc == null || !headers) {
            String msg = "SKIPPED: struct layout check needs gcc and the rdma-core headers ("
                    + (gcc == null ? "gcc missing" : "headers missing") + "). Run: " + INSTALL;
            System.err.println("\n**********\n" + msg + "\n**********\n");
            Assumptions.abort(msg);
        }
        StringBuilder c = new StringBuilder("""
                #include <stdio.h>
                #include <stddef.h>
                #include <sys/socket.h>
                #include <netinet/in.h>
                #include <infiniband/verbs.h>
                #include <rdma/rdma_cma.h>
                #define P(name, value) printf("%s %lld\\n", name, (long long) (value))
                int main(void) {
                """);
        Map<String, String> all = new LinkedHashMap<>(LAYOUTS);
        for (String constant : constantNames()) {
            all.put(constant, constant);
        }
        all.putAll(SPI_CONSTANTS);
        all.forEach((name, expr) -> c.append("    P(\"").append(name).append("\", ").append(expr).append(");\n"));
        c.append("    return 0;\n}\n");
        Path source = dir.resolve("layouts.c");
        Path binary = dir.resolve("layouts");
        Files.writeString(source, c);
        String compiled = run(List.of(gcc, "-Wall", "-o", binary.toString(), source.toString()));
        assertTrue(Files.isExecutable(binary), "gcc failed:\n" + compiled);
        actual = new TreeMap<>();
        for (String line : run(List.of(binary.toString())).split("\n")) {
            if (!line.isBlank()) {
                String[] parts = line.trim().split(" ");
                actual.put(parts[0], Long.parseLong(parts[1]));
            }
        }
    }

    @Test
    void everyLayoutConstantIsCheckedAndMatchesTheHeaders() throws Exception {
        Map<String, Long> java = new TreeMap<>();
        for (Class<?> holder : List.of(IbvLayouts.class, RdmaCmLayouts.class)) {
            for (Class<?> struct : holder.getDeclaredClasses()) {
                for (Field f : constants(struct)) {
                    java.put(struct.getSimpleName() + "." + f.getName(), f.getLong(null));
                }
            }
        }
        assertEquals(new TreeSet<>(java.keySet()), new TreeSet<>(LAYOUTS.keySet()),
                "every layout constant must have a C expression in this test (and no stale entries)");
        assertMatches(java);
    }

    @Test
    void everyEnumConstantMatchesTheHeaders() throws Exception {
        Map<String, Long> java = new TreeMap<>();
        for (Class<?> holder : List.of(IbvConstants.class, RdmaCmConstants.class)) {
            for (Field f : constants(holder)) {
                java.put(f.getName(), f.getLong(null));
            }
        }
        assertTrue(java.size() > 30, "constants found: " + java.size());
        assertMatches(java);
    }

    @Test
    void dataPathFunctionPointersAreWhereTheNotesSay() {
        // rdma-core 44's struct ibv_context (libibverbs/verbs.h): ops at 8, post_send at 8 + 200.
        assertEquals(8 + 200, actual.get("IbvContext.OPS_POST_SEND"));
        assertEquals(8 + 88, actual.get("IbvContext.OPS_POLL_CQ"));
        assertEquals(128, actual.get("IbvSendWr.SIZE"));
        assertEquals(48, actual.get("IbvWc.SIZE"));
    }

    private static void assertMatches(Map<String, Long> java) {
        List<String> mismatches = new ArrayList<>();
        java.forEach((name, value) -> {
            Long c = actual.get(name);
            if (!value.equals(c)) {
                mismatches.add(name + ": Java " + value + ", C " + c);
            }
        });
        if (!mismatches.isEmpty()) {
            fail(mismatches.size() + " constant(s) differ from the headers:\n  " + String.join("\n  ", mismatches));
        }
    }

    private static List<Field> constants(Class<?> type) {
        return Stream.of(type.getDeclaredFields())
                .filter(f -> Modifier.isStatic(f.getModifiers()) && Modifier.isFinal(f.getModifiers())
                        && (f.getType() == int.class || f.getType() == long.class))
                .sorted(Comparator.comparing(Field::getName))
                .toList();
    }

    private static List<String> constantNames() {
        List<String> names = new ArrayList<>();
        for (Class<?> holder : List.of(IbvConstants.class, RdmaCmConstants.class)) {
            constants(holder).forEach(f -> names.add(f.getName()));
        }
        return names;
    }

    static String findOnPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path p = Path.of(dir, program);
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }

    static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("timed out: " + command);
        }
        String text = new String(out, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            fail(command + " exited with " + p.exitValue() + ":\n" + text);
        }
        return text;
    }
}
