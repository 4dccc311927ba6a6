package dev.rpcrdma.interop.hadoop;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.tcp.TcpRpcClientInitializer;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.time.Duration;
import dev.rpcrdma.channel.RdmaServerChannel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaFraming;
import dev.rpcrdma.handlers.binding.UpperLayerBinding;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.EventExecutorGroup;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.nfs.conf.NfsConfiguration;
import org.apache.hadoop.hdfs.nfs.nfs3.Nfs3;
import org.apache.hadoop.oncrpc.RpcUtil;
import org.apache.hadoop.security.authorize.DefaultImpersonationProvider;
import org.apache.hadoop.security.authorize.ProxyUsers;

import java.io.File;
import java.net.InetSocketAddress;

/**
 * Apache Hadoop's NFS gateway ({@code Nfs3} of hadoop-hdfs-nfs 3.4.1) on a {@link MiniDFSCluster}, started the way
 * Hadoop's own {@code TestRpcProgramNfs3} starts it (one DataNode, the current user a proxy superuser, exports
 * {@code "* rw"}); its MOUNT and NFS programs listen on TCP as Hadoop starts them, and its NFS program, unchanged,
 * also on RPC-over-RDMA: {@code SimpleTcpServer}'s pipeline with Hadoop's record-mark frame decoder replaced by the
 * byte framing, RFC 8267's NFS binding placing READ data in the client's Write chunks.
 */
final class HadoopNfsGateway implements AutoCloseable {
    final MiniDFSCluster cluster;
    final Nfs3 nfs;
    final RpcRdmaFraming framing;
    final Channel rdma;
    /** The RDMA connections accepted (open ones). */
    final ChannelGroup connections;
    final int mountPort;
    final int nfsTcpPort;

    private HadoopNfsGateway(MiniDFSCluster cluster, Nfs3 nfs, RpcRdmaFraming framing, Channel rdma,
                             ChannelGroup connections, int mountPort, int nfsTcpPort) {
        this.connections = connections;
        this.cluster = cluster;
        this.nfs = nfs;
        this.framing = framing;
        this.rdma = rdma;
        this.mountPort = mountPort;
        this.nfsTcpPort = nfsTcpPort;
    }

    /** A TCP port free now (Hadoop's servers do not report the ephemeral ports they bound). */
    static int freePort() throws java.io.IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /**
     * Starts HDFS in {@code baseDir}, the gateway's MOUNT on TCP {@code mountPort} and NFS on TCP {@code nfsTcpPort},
     * and NFS over RPC-over-RDMA at {@code rdmaAddress} on {@code group}'s RDMA loops.
     */
    static HadoopNfsGateway start(File baseDir, int mountPort, int nfsTcpPort, EventLoopGroup group,
                                  InetSocketAddress rdmaAddress) throws Exception {
        NfsConfiguration config = new NfsConfiguration();
        String user = System.getProperty("user.name");
        config.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, baseDir.getAbsolutePath());
        config.set("fs.permissions.umask-mode", "022");
        // Every file open for writing reserves a whole block on the DataNode's volume until its stream closes (the
        // gateway keeps streams open for minutes); with 128 MiB blocks a directory of small files exhausts a VM's
        // tmpfs and the NameNode refuses new blocks ("could only be written to 0 of the 1 minReplication nodes").
        config.setLong("dfs.blocksize", 8L << 20);
        config.set(DefaultImpersonationProvider.getTestProvider().getProxySuperuserGroupConfKey(user), "*");
        config.set(DefaultImpersonationProvider.getTestProvider().getProxySuperuserIpConfKey(user), "*");
        ProxyUsers.refreshSuperUserGroupsConfiguration(config);
        MiniDFSCluster cluster = new MiniDFSCluster.Builder(config).numDataNodes(1).build();
        try {
            cluster.waitActive();
            config.set("fs.defaultFS", cluster.getURI().toString());
            config.setInt("nfs3.mountd.port", mountPort);
            config.setInt("nfs3.server.port", nfsTcpPort);
            config.set("dfs.nfs.exports.allowed.hosts", "* rw");
            // Not registered with a portmapper (startServiceInternal(false)): stop()'s unregistration fails fast.
            config.setInt("nfs.udp.client.portmap.timeout.millis", 10);
            Nfs3 nfs = new Nfs3(config);
            nfs.startServiceInternal(false);
            // 16 credits, not 64: Hadoop answers one connection's calls one at a time, and a kernel client whose call
            // waits longer than timeo (60 s) for its reply reconnects over RDMA (docs/drop-in.md#hadoop); 16 x 1 MiB
            // WRITEs queued keep the program busy without making the last one wait a minute on a slow machine.
            // -Dhadoop.gateway.credits=N grants N instead (figures).
            RpcRdmaFraming framing = RpcRdmaFraming.of(RpcRdmaConfig.DEFAULT.withGrantBounds(1,
                            Integer.getInteger("hadoop.gateway.credits", 16)))
                    .withBinding(UpperLayerBinding.nfs()).withRecordMarks(true);
            // Hadoop's NFS program blocks its thread on HDFS (writes wait for the DataNodes): on TCP that thread is a
            // Netty worker that only reads sockets; on RDMA the channel's loop also reaps the completion queue, so
            // the program runs on its own executors, as any blocking handler should.
            EventExecutorGroup hadoop = new DefaultEventExecutorGroup(4);
            ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
            ChannelInitializer<Channel> server = framing.server(p -> p.addLast(hadoop,
                    RpcUtil.STAGE_RPC_MESSAGE_PARSER, nfs.getRpcProgram(), RpcUtil.STAGE_RPC_TCP_RESPONSE));
            Channel rdma = new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            connections.add(ch);
                            ch.pipeline().addLast(server);
                        }
                    })
                    .bind(rdmaAddress).sync().channel();
            rdma.closeFuture().addListener(f -> hadoop.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS));
            return new HadoopNfsGateway(cluster, nfs, framing, rdma, connections, mountPort, nfsTcpPort);
        } catch (Exception | Error e) {
            cluster.shutdown();
            throw e;
        }
    }

    /** MOUNTPROC3_MNT of "/" over TCP on {@code tcp}, as the kernel client mounts: the root's file handle. */
    byte[] mountRoot(EventLoopGroup tcp) throws Exception {
        Channel mount = new Bootstrap().group(tcp).channel(NioSocketChannel.class)
                .handler(new TcpRpcClientInitializer())
                .connect(new InetSocketAddress("127.0.0.1", mountPort)).sync().channel();
        try {
            return new Nfs3Calls(RpcClient.of(mount)).mount("/");
        } finally {
            mount.close().sync();
        }
    }

    /** An RPC-over-RDMA connection of this project's client to the gateway's NFS program, counting in {@code stats}. */
    Channel connectRdma(EventLoopGroup group, RpcRdmaStats stats) throws InterruptedException {
        return new Bootstrap().group(group).channel(RdmaChannel.class)
                .handler(new RpcRdmaClientInitializer(new RpcStats(), RpcRdmaConfig.DEFAULT, stats,
                        Duration.ofSeconds(Nfs3Calls.TIMEOUT)))
                .connect(rdma.localAddress()).sync().channel();
    }

    /** The framing's counters and each open connection's registered memory pool, for a progress line. */
    String state() {
        StringBuilder b = new StringBuilder(framing.stats().toString());
        for (Channel ch : connections) {
            if (ch instanceof RdmaChannel) {
                RdmaChannel c = (RdmaChannel) ch;
                b.append("; ").append(c.remoteAddress()).append(" receives ").append(c.postedReceives());
                try {
                    b.append(' ').append(c.memoryPool()).append(" exhaustions ").append(c.memoryPool().exhaustions());
                } catch (IllegalStateException closed) {
                    b.append(" closed");
                }
            }
        }
        return b.toString();
    }

    @Override
    public void close() throws Exception {
        try {
            // The connections first, then the listener: its close shuts the program's executors down, and a
            // connection still open then hands its calls and events to executors that reject them.
            connections.close().await(30, java.util.concurrent.TimeUnit.SECONDS);
            rdma.close().sync();
            try {
                nfs.stop();
            } catch (RuntimeException notRegistered) {
                // "Unregistration failure": there is no portmapper to unregister from; the servers are stopped.
            }
        } finally {
            cluster.shutdown();
        }
    }
}
