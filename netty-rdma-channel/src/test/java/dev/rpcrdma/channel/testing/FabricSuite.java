package dev.rpcrdma.channel.testing;

import dev.rpcrdma.channel.fabric.Fabric;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.net.InetAddress;
import java.util.Map;

/**
 * The base of a suite that runs once per {@link TestFabric}, as Netty's {@code AbstractSocketTest} is of its socket
 * tests: the fabric is set up before the suite's own {@code @BeforeEach} methods and put back after its
 * {@code @AfterEach} methods.
 */
public abstract class FabricSuite {
    /** The fabric under test. */
    protected final TestFabric testFabric;

    protected FabricSuite(TestFabric testFabric) {
        this.testFabric = testFabric;
    }

    @BeforeEach
    protected void setUpFabric() {
        testFabric.setUp(getClass().getSimpleName());
    }

    @AfterEach
    protected void tearDownFabric() {
        testFabric.tearDown();
    }

    protected Fabric fabric() {
        return testFabric.fabric();
    }

    /** The address servers listen on. */
    protected InetAddress address() {
        return testFabric.address();
    }

    /** Live device objects per kind (the software fabric's counts, or {@code rdma resource show} on a device). */
    protected Map<String, Integer> resources() {
        return testFabric.resources();
    }
}
