package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.testing.DeviceResourceBaseline;
import dev.rpcrdma.channel.testing.NativeTestDevice;
import dev.rpcrdma.channel.testing.TestFabric;
import dev.rpcrdma.oncrpc.gss.Krb5Credentials;
import dev.rpcrdma.oncrpc.gss.RpcGssAuthenticator;
import dev.rpcrdma.oncrpc.gss.RpcGssClientContext;
import dev.rpcrdma.oncrpc.gss.RpcGssService;
import dev.rpcrdma.testing.Krb5Realm;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.ietf.jgss.GSSCredential;
import org.ietf.jgss.GSSName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * RFC 5661 §2.10.8.2 over RPC-over-RDMA on a real device (every provider of the VM stage: Soft-RoCE and
 * Soft-iWARP): the NFS sample with {@code --sec krb5i,krb5p} on the native fabric calls CB_RECALL back over the RDMA
 * backchannel (RFC 8167) under the RPCSEC_GSS context our client offered in CREATE_SESSION, with its back handle
 * and the service it chose ({@link Nfs4SecurityTest#callbacksUnderTheClientsContext}; the same scenario runs over
 * TCP and the software fabric in {@code mvn verify}). The device's resource counts must be back at their baseline
 * after the class.
 */
@Tag("rdma-device")
@ExtendWith(DeviceResourceBaseline.class)
class NativeFabricNfs4GssCallbackTest {

    @Test
    void callbacksCarryTheRpcsecGssHandleTheClientOffered() throws Exception {
        NativeTestDevice.assumeNativeFabric("RFC 5661 §2.10.8.2 callbacks ran only over TCP and the software fabric");
        Krb5Realm realm = Krb5Realm.shared();
        Path serverKeytab = realm.addPrincipal("nfs/localhost");
        GSSCredential root = Krb5Credentials.initiator(Krb5Realm.name("root"), realm.addPrincipal("root"));
        GSSName target = Krb5Credentials.principalName(Krb5Realm.name("nfs/localhost"));
        String address = NativeTestDevice.address().getHostAddress();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2,
                RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(TestFabric.NATIVE.fabric())));
        try (Nfs4Server server = Nfs4Server.start("--transport", "rdma", "--rdma-port", "0", "--address", address,
                "--fabric", "native", "--sec", "krb5i,krb5p", "--keytab", serverKeytab.toString(),
                "--principal", Krb5Realm.name("nfs/localhost"))) {
            InetSocketAddress rdma = new InetSocketAddress(address, server.rdmaAddress().getPort());
            RpcGssAuthenticator callbacks = RpcGssAuthenticator.forCallbacks();
            try (Nfs4TestClient a = Nfs4TestClient.connectRdma(group, rdma, "gss-callbacks", callbacks);
                 Nfs4TestClient writer = Nfs4TestClient.connectRdma(group, rdma, "gss-writer")) {
                writer.options = RpcGssClientContext.establish(writer.rpc, Nfs4.PROGRAM, Nfs4.VERSION, root, target,
                        RpcGssService.PRIVACY).callOptions().withTimeout(Duration.ofSeconds(30));
                Nfs4SecurityTest.callbacksUnderTheClientsContext(a, callbacks, writer, root, target);
                System.out.println("native fabric on " + address + ": server gss " + server.gss().stats()
                        + "; client callbacks " + callbacks.stats());
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
