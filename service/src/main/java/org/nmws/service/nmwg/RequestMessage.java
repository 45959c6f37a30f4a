package org.nmws.service.nmwg;

import java.util.List;
import java.util.Map;
import org.w3c.dom.Element;

/**
 * An NMWG v2 request as read off the wire, before its references are resolved.
 * Tool namespaces vary (nmwg:subject, ping:subject, select:parameters), so elements are
 * kept by role, whatever their namespace.
 */
public record RequestMessage(String id, String type, List<Metadata> metadata, List<Data> data) {

    /** One parameter: {@code <nmwg:parameter name="count">10</nmwg:parameter>} or value="10". */
    public record Param(String name, String operator, String value) {
    }

    /**
     * @param subject the subject element (any namespace), or null
     * @param subjectIdRef the subject's own metadataIdRef (select and tool subjects chain this way), or null
     * @param parameters parameters of non-select namespaces, in document order
     * @param selectParameters parameters of the select namespace, in document order
     * @param key the maKey sent back by a client, "" for a key without maKey, or null for no key
     */
    public record Metadata(String id, String metadataIdRef, Element subject, String subjectIdRef,
                           List<String> eventTypes, List<Param> parameters, List<Param> selectParameters,
                           String key) {
    }

    public record Data(String id, String metadataIdRef) {
    }

    public Map<String, Metadata> metadataById() {
        java.util.LinkedHashMap<String, Metadata> m = new java.util.LinkedHashMap<>();
        for (Metadata md : metadata) {
            m.putIfAbsent(md.id(), md);
        }
        return m;
    }
}
