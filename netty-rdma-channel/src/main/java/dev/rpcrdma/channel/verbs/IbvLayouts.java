package dev.rpcrdma.channel.verbs;

/**
 * Offsets and sizes of the libibverbs structs the bindings read and write in place (x86_64, rdma-core headers).
 * One nested class per C struct; every constant is checked against {@code offsetof}/{@code sizeof} from the
 * installed headers by {@code StructLayoutsTest}.
 */
final class IbvLayouts {
    private IbvLayouts() {
    }

    /** {@code struct ibv_context}, with the {@code ops} function pointers used for the static inline verbs. */
    /** {@code struct ibv_device} (what {@code ibv_context.device} points to). */
    public static final class IbvDevice {
        /** {@code enum ibv_node_type node_type} ({@code IBV_NODE_RNIC} 4 for iWARP). */
        public static final int NODE_TYPE = 16;
        /** {@code enum ibv_transport_type transport_type} ({@code IBV_TRANSPORT_IB} 0, {@code _IWARP} 1). */
        public static final int TRANSPORT_TYPE = 20;

        private IbvDevice() {
        }
    }

    public static final class IbvContext {
        public static final int DEVICE = 0;
        /** {@code ops.alloc_mw}: {@code struct ibv_mw *(*)(struct ibv_pd *, enum ibv_mw_type)}. */
        public static final int OPS_ALLOC_MW = 64;
        /** {@code ops.dealloc_mw}: {@code int (*)(struct ibv_mw *)}. */
        public static final int OPS_DEALLOC_MW = 80;
        /** {@code ops.poll_cq}: {@code int (*)(struct ibv_cq *, int, struct ibv_wc *)}. */
        public static final int OPS_POLL_CQ = 96;
        /** {@code ops.req_notify_cq}: {@code int (*)(struct ibv_cq *, int)}. */
        public static final int OPS_REQ_NOTIFY_CQ = 104;
        /**
         * {@code ops.post_srq_recv}: {@code int (*)(struct ibv_srq *, struct ibv_recv_wr *, struct ibv_recv_wr **)}.
         */
        public static final int OPS_POST_SRQ_RECV = 168;
        /** {@code ops.post_send}: {@code int (*)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **)}. */
        public static final int OPS_POST_SEND = 208;
        /** {@code ops.post_recv}: {@code int (*)(struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **)}. */
        public static final int OPS_POST_RECV = 216;
        public static final int NUM_COMP_VECTORS = 272;

        private IbvContext() {
        }
    }

    /** {@code struct ibv_pd}. */
    public static final class IbvPd {
        public static final int CONTEXT = 0;
        public static final int HANDLE = 8;

        private IbvPd() {
        }
    }

    /** {@code struct ibv_mr}. */
    public static final class IbvMr {
        public static final int CONTEXT = 0;
        public static final int PD = 8;
        public static final int ADDR = 16;
        public static final int LENGTH = 24;
        public static final int HANDLE = 32;
        public static final int LKEY = 36;
        public static final int RKEY = 40;
        public static final int SIZE = 48;

        private IbvMr() {
        }
    }

    /** {@code struct ibv_mw}. */
    public static final class IbvMw {
        public static final int CONTEXT = 0;
        public static final int PD = 8;
        public static final int RKEY = 16;
        public static final int HANDLE = 20;
        public static final int TYPE = 24;
        public static final int SIZE = 32;

        private IbvMw() {
        }
    }

    /** {@code struct ibv_cq}. */
    public static final class IbvCq {
        public static final int CONTEXT = 0;
        public static final int CHANNEL = 8;
        public static final int CQ_CONTEXT = 16;
        public static final int HANDLE = 24;
        public static final int CQE = 28;

        private IbvCq() {
        }
    }

    /** {@code struct ibv_comp_channel}. */
    public static final class IbvCompChannel {
        public static final int CONTEXT = 0;
        public static final int FD = 8;
        public static final int REFCNT = 12;
        public static final int SIZE = 16;

        private IbvCompChannel() {
        }
    }

    /** {@code struct ibv_qp}. */
    public static final class IbvQp {
        public static final int CONTEXT = 0;
        public static final int QP_CONTEXT = 8;
        public static final int PD = 16;
        public static final int SEND_CQ = 24;
        public static final int RECV_CQ = 32;
        public static final int SRQ = 40;
        public static final int HANDLE = 48;
        public static final int QP_NUM = 52;
        public static final int STATE = 56;
        public static final int QP_TYPE = 60;

        private IbvQp() {
        }
    }

    /** {@code struct ibv_sge}. */
    public static final class IbvSge {
        public static final int ADDR = 0;
        public static final int LENGTH = 8;
        public static final int LKEY = 12;
        public static final int SIZE = 16;

        private IbvSge() {
        }
    }

    /** {@code struct ibv_send_wr}, with its unions flattened. */
    public static final class IbvSendWr {
        public static final int WR_ID = 0;
        public static final int NEXT = 8;
        public static final int SG_LIST = 16;
        public static final int NUM_SGE = 24;
        public static final int OPCODE = 28;
        public static final int SEND_FLAGS = 32;
        /** {@code imm_data} (__be32), union with {@link #INVALIDATE_RKEY}. */
        public static final int IMM_DATA = 36;
        /** {@code invalidate_rkey} (host order), union with {@link #IMM_DATA}. */
        public static final int INVALIDATE_RKEY = 36;
        /** {@code wr.rdma.remote_addr}. */
        public static final int RDMA_REMOTE_ADDR = 40;
        /** {@code wr.rdma.rkey}. */
        public static final int RDMA_RKEY = 48;
        /** {@code bind_mw.mw}. */
        public static final int BIND_MW_MW = 80;
        /** {@code bind_mw.rkey}: the new rkey (see {@link Verbs#incRkey(int)}). */
        public static final int BIND_MW_RKEY = 88;
        /** {@code bind_mw.bind_info.mr}. */
        public static final int BIND_MW_BIND_INFO_MR = 96;
        /** {@code bind_mw.bind_info.addr}. */
        public static final int BIND_MW_BIND_INFO_ADDR = 104;
        /** {@code bind_mw.bind_info.length}. */
        public static final int BIND_MW_BIND_INFO_LENGTH = 112;
        /** {@code bind_mw.bind_info.mw_access_flags}. */
        public static final int BIND_MW_BIND_INFO_MW_ACCESS_FLAGS = 120;
        public static final int SIZE = 128;

        private IbvSendWr() {
        }
    }

    /** {@code struct ibv_recv_wr}. */
    public static final class IbvRecvWr {
        public static final int WR_ID = 0;
        public static final int NEXT = 8;
        public static final int SG_LIST = 16;
        public static final int NUM_SGE = 24;
        public static final int SIZE = 32;

        private IbvRecvWr() {
        }
    }

    /** {@code struct ibv_wc}. */
    public static final class IbvWc {
        public static final int WR_ID = 0;
        public static final int STATUS = 8;
        public static final int OPCODE = 12;
        public static final int VENDOR_ERR = 16;
        public static final int BYTE_LEN = 20;
        /** {@code imm_data} (__be32), union with {@link #INVALIDATED_RKEY}. */
        public static final int IMM_DATA = 24;
        /** {@code invalidated_rkey} (host order), valid with {@code IBV_WC_WITH_INV}. */
        public static final int INVALIDATED_RKEY = 24;
        public static final int QP_NUM = 28;
        public static final int SRC_QP = 32;
        public static final int WC_FLAGS = 36;
        public static final int PKEY_INDEX = 40;
        public static final int SLID = 42;
        public static final int SL = 44;
        public static final int DLID_PATH_BITS = 45;
        public static final int SIZE = 48;

        private IbvWc() {
        }
    }

    /** {@code struct ibv_qp_cap}. */
    public static final class IbvQpCap {
        public static final int MAX_SEND_WR = 0;
        public static final int MAX_RECV_WR = 4;
        public static final int MAX_SEND_SGE = 8;
        public static final int MAX_RECV_SGE = 12;
        public static final int MAX_INLINE_DATA = 16;
        public static final int SIZE = 20;

        private IbvQpCap() {
        }
    }

    /** {@code struct ibv_srq} (its context, for the ops of the static inline {@code ibv_post_srq_recv}). */
    public static final class IbvSrq {
        public static final int CONTEXT = 0;

        private IbvSrq() {
        }
    }

    /** {@code struct ibv_srq_init_attr}: {@code srq_context}, then {@code struct ibv_srq_attr attr}. */
    public static final class IbvSrqInitAttr {
        public static final int MAX_WR = 8;
        public static final int MAX_SGE = 12;
        public static final int SRQ_LIMIT = 16;
        public static final int SIZE = 24;

        private IbvSrqInitAttr() {
        }
    }

    /** {@code struct ibv_qp_init_attr}. */
    public static final class IbvQpInitAttr {
        public static final int QP_CONTEXT = 0;
        public static final int SEND_CQ = 8;
        public static final int RECV_CQ = 16;
        public static final int SRQ = 24;
        public static final int CAP = 32;
        public static final int QP_TYPE = 52;
        public static final int SQ_SIG_ALL = 56;
        public static final int SIZE = 64;

        private IbvQpInitAttr() {
        }
    }

    /** {@code struct ibv_qp_attr} (only {@code qp_state} is used). */
    public static final class IbvQpAttr {
        public static final int QP_STATE = 0;
        public static final int CUR_QP_STATE = 4;
        public static final int SIZE = 144;

        private IbvQpAttr() {
        }
    }

    /** {@code struct ibv_device_attr} (the fields the bindings read). */
    public static final class IbvDeviceAttr {
        public static final int FW_VER = 0;
        public static final int FW_VER_LENGTH = 64;
        public static final int NODE_GUID = 64;
        public static final int MAX_MR_SIZE = 80;
        public static final int VENDOR_ID = 96;
        public static final int VENDOR_PART_ID = 100;
        public static final int MAX_QP = 108;
        public static final int MAX_QP_WR = 112;
        public static final int DEVICE_CAP_FLAGS = 116;
        public static final int MAX_SGE = 120;
        public static final int MAX_SGE_RD = 124;
        public static final int MAX_CQE = 132;
        public static final int MAX_MR = 136;
        public static final int MAX_PD = 140;
        public static final int MAX_QP_RD_ATOM = 144;
        public static final int MAX_QP_INIT_RD_ATOM = 156;
        public static final int MAX_MW = 176;
        public static final int PHYS_PORT_CNT = 227;
        public static final int SIZE = 232;

        private IbvDeviceAttr() {
        }
    }
}
