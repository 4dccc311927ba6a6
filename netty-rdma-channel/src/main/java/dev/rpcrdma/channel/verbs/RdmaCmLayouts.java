package dev.rpcrdma.channel.verbs;

/**
 * Offsets and sizes of the librdmacm structs (and socket addresses) the bindings read and write (x86_64,
 * rdma-core headers). Checked against {@code offsetof}/{@code sizeof} by {@code StructLayoutsTest}.
 */
final class RdmaCmLayouts {
    private RdmaCmLayouts() {
    }

    /** {@code struct rdma_event_channel}. */
    public static final class RdmaEventChannel {
        public static final int FD = 0;

        private RdmaEventChannel() {
        }
    }

    /** {@code struct rdma_cm_id}. */
    public static final class RdmaCmId {
        public static final int VERBS = 0;
        public static final int CHANNEL = 8;
        public static final int CONTEXT = 16;
        public static final int QP = 24;
        /** {@code route.addr.src_addr}: the local socket address (sockaddr_storage). */
        public static final int ROUTE_ADDR_SRC_ADDR = 32;
        /** {@code route.addr.dst_addr}: the peer socket address (sockaddr_storage). */
        public static final int ROUTE_ADDR_DST_ADDR = 160;
        public static final int PS = 344;
        public static final int PORT_NUM = 348;
        public static final int EVENT = 352;
        public static final int SEND_CQ_CHANNEL = 360;
        public static final int SEND_CQ = 368;
        public static final int RECV_CQ_CHANNEL = 376;
        public static final int RECV_CQ = 384;
        public static final int SRQ = 392;
        public static final int PD = 400;
        public static final int QP_TYPE = 408;
        public static final int SIZE = 416;

        private RdmaCmId() {
        }
    }

    /** {@code struct rdma_conn_param}. */
    public static final class RdmaConnParam {
        public static final int PRIVATE_DATA = 0;
        public static final int PRIVATE_DATA_LEN = 8;
        public static final int RESPONDER_RESOURCES = 9;
        public static final int INITIATOR_DEPTH = 10;
        public static final int FLOW_CONTROL = 11;
        public static final int RETRY_COUNT = 12;
        public static final int RNR_RETRY_COUNT = 13;
        public static final int SRQ = 14;
        public static final int QP_NUM = 16;
        public static final int SIZE = 24;

        private RdmaConnParam() {
        }
    }

    /** {@code struct rdma_cm_event}. */
    public static final class RdmaCmEvent {
        public static final int ID = 0;
        public static final int LISTEN_ID = 8;
        public static final int EVENT = 16;
        public static final int STATUS = 20;
        /** {@code param.conn}: a {@link RdmaConnParam}. */
        public static final int PARAM_CONN = 24;
        public static final int SIZE = 80;

        private RdmaCmEvent() {
        }
    }

    /** {@code struct sockaddr_in}. */
    public static final class SockaddrIn {
        public static final int SIN_FAMILY = 0;
        public static final int SIN_PORT = 2;
        public static final int SIN_ADDR = 4;
        public static final int SIZE = 16;

        private SockaddrIn() {
        }
    }

    /** {@code struct sockaddr_in6}. */
    public static final class SockaddrIn6 {
        public static final int SIN6_FAMILY = 0;
        public static final int SIN6_PORT = 2;
        public static final int SIN6_FLOWINFO = 4;
        public static final int SIN6_ADDR = 8;
        public static final int SIN6_SCOPE_ID = 24;
        public static final int SIZE = 28;

        private SockaddrIn6() {
        }
    }
}
