package dev.rpcrdma.oncrpc.metrics;

import org.HdrHistogram.Histogram;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanOperationInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The JMX view of an {@link RpcMetrics}: read-only long attributes built on each read from the current
 * registrations ({@code Calls}, {@code Errors}, {@code BytesIn}, {@code BytesOut}, {@code Errors.<KIND>}, per
 * procedure {@code <name>.Calls}, {@code .Errors}, {@code .LatencyMeanNanos}, {@code .LatencyP50Nanos},
 * {@code .LatencyP99Nanos}, {@code .LatencyP999Nanos}, {@code .LatencyMaxNanos}, and the attached counters).
 * Thread-safe (reads only).
 */
final class RpcMetricsMBean implements DynamicMBean {

    private final RpcMetrics metrics;

    RpcMetricsMBean(RpcMetrics metrics) {
        this.metrics = metrics;
    }

    private Map<String, LongSupplier> attributes() {
        Map<String, LongSupplier> a = new LinkedHashMap<>();
        a.put("Calls", metrics::calls);
        a.put("Errors", metrics::errors);
        a.put("BytesIn", metrics::bytesIn);
        a.put("BytesOut", metrics::bytesOut);
        for (RpcErrorKind kind : RpcErrorKind.values()) {
            a.put("Errors." + kind.name(), () -> metrics.errors(kind));
        }
        List<ProcedureMetrics> procedures = new ArrayList<>(metrics.procedures());
        procedures.add(metrics.unregistered());
        for (ProcedureMetrics p : procedures) {
            a.put(p.name() + ".Calls", p::calls);
            a.put(p.name() + ".Errors", p::errors);
            a.put(p.name() + ".LatencyMeanNanos", () -> (long) p.latency().getMean());
            a.put(p.name() + ".LatencyP50Nanos", () -> percentile(p, 50));
            a.put(p.name() + ".LatencyP99Nanos", () -> percentile(p, 99));
            a.put(p.name() + ".LatencyP999Nanos", () -> percentile(p, 99.9));
            a.put(p.name() + ".LatencyMaxNanos", () -> p.latency().getMaxValue());
        }
        a.putAll(metrics.attached());
        return a;
    }

    private static long percentile(ProcedureMetrics p, double percentile) {
        Histogram h = p.latency();
        return h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(percentile);
    }

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException {
        LongSupplier s = attributes().get(attribute);
        if (s == null) {
            throw new AttributeNotFoundException(attribute);
        }
        return s.getAsLong();
    }

    @Override
    public void setAttribute(Attribute attribute) throws AttributeNotFoundException {
        throw new AttributeNotFoundException("read-only: " + attribute.getName());
    }

    @Override
    public AttributeList getAttributes(String[] names) {
        Map<String, LongSupplier> all = attributes();
        AttributeList list = new AttributeList();
        for (String n : names) {
            LongSupplier s = all.get(n);
            if (s != null) {
                list.add(new Attribute(n, s.getAsLong()));
            }
        }
        return list;
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
        return new AttributeList();
    }

    @Override
    public Object invoke(String actionName, Object[] params, String[] signature) {
        throw new UnsupportedOperationException(actionName);
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        List<MBeanAttributeInfo> infos = new ArrayList<>();
        for (String n : attributes().keySet()) {
            infos.add(new MBeanAttributeInfo(n, "long", n, true, false, false));
        }
        return new MBeanInfo(RpcMetrics.class.getName(), metrics.toString(),
                infos.toArray(new MBeanAttributeInfo[0]), null, new MBeanOperationInfo[0], null);
    }
}
