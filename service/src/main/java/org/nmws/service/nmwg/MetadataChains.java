package org.nmws.service.nmwg;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Namespaces;
import org.nmws.service.usecase.ErrorCodes;
import org.w3c.dom.Element;

/**
 * How NMWG v2 reads what a data trigger asks for: its metadata, what they refer to (their own
 * metadataIdRef and their subject's, perfSONAR's merge chaining), merged nearest first into one
 * eventType, subject, parameters, select chain and key.
 */
final class MetadataChains {
    static final String SELECT_EVENT_TYPE = "http://ggf.org/ns/nmwg/ops/select/2.0";

    private MetadataChains() {
    }

    /** What a data trigger asks for, after following its metadata chain. */
    record Resolved(String metadataId, Characteristic characteristic, String eventType, Element subject,
                    Map<String, String> parameters, List<RequestMessage.Param> select, String key, String advice) {
        Resolved(String metadataId, Characteristic characteristic, String eventType, Element subject,
                 Map<String, String> parameters, List<RequestMessage.Param> select, String key) {
            this(metadataId, characteristic, eventType, subject, parameters, select, key, null);
        }
    }

    /** The nmws eventType a chain names that is not a characteristic: cost or diagnosis; else null. */
    static String advice(String eventType) {
        String e = eventType.trim();
        String slashed = e.endsWith("/") ? e : e + "/";
        return slashed.equals(Namespaces.COST) ? Namespaces.COST : slashed.equals(Namespaces.DIAGNOSIS) ? Namespaces.DIAGNOSIS : null;
    }

    /**
     * Follows data -> metadata -> metadataIdRef (or the subject's metadataIdRef) to the end,
     * the nearest metadata winning for each item; subjects merge element by element (see
     * SubjectReader.merge). Dangling references and cycles are errors.
     */
    static Resolved resolve(RequestMessage.Data data, Map<String, RequestMessage.Metadata> byId) throws NmwgException {
        return resolve(data, byId, true);
    }

    /**
     * @param eventTypeRequired whether a chain naming no characteristic (no known eventType,
     *        no tool-namespace subject, no key) is an error
     */
    static Resolved resolve(RequestMessage.Data data, Map<String, RequestMessage.Metadata> byId, boolean eventTypeRequired)
            throws NmwgException {
        if (data.metadataIdRef() == null) {
            throw new NmwgException(ErrorCodes.STRUCTURE, "data '" + data.id() + "' has no metadataIdRef");
        }
        String id = data.metadataIdRef();
        Set<String> seen = new HashSet<>();
        Element subject = null;
        String eventType = null;
        Characteristic characteristic = null;
        List<String> unknown = new ArrayList<>();
        Map<String, String> params = new LinkedHashMap<>();
        List<RequestMessage.Param> select = new ArrayList<>();
        String key = null;
        String toolNamespace = null;
        String adviceType = null;
        String adviceEventType = null;
        List<RequestMessage.Metadata> chain = new ArrayList<>();
        walk(id, data, byId, new java.util.LinkedHashSet<>(), seen, chain);
        List<Element> subjects = new ArrayList<>();
        for (RequestMessage.Metadata md : chain) {
            if (md.subject() != null && !NmwgReader.children(md.subject()).isEmpty()) {
                subjects.add(md.subject());
            }
            if (toolNamespace == null && md.subject() != null && isToolNamespace(md.subject().getNamespaceURI())) {
                toolNamespace = md.subject().getNamespaceURI();
            }
            for (String et : md.eventTypes()) {
                if (et.startsWith(SELECT_EVENT_TYPE)) {
                    continue;
                }
                if (advice(et) != null) {
                    if (adviceType == null) {
                        adviceType = advice(et);
                        adviceEventType = et;
                    }
                    continue;
                }
                Optional<Characteristic> c = Characteristic.lookup(et);
                if (c.isPresent() && characteristic == null) {
                    characteristic = c.get();
                    eventType = et;
                } else if (c.isEmpty()) {
                    unknown.add(et);
                }
            }
            for (RequestMessage.Param p : md.parameters()) {
                params.putIfAbsent(p.name(), p.value());
            }
            select.addAll(md.selectParameters());
            if (key == null) {
                key = md.key();
            }
        }
        if (!subjects.isEmpty()) {
            subject = SubjectReader.merge(subjects);
        }
        if (characteristic == null && unknown.isEmpty() && toolNamespace != null) {
            // perfSONAR MPs name the tool by the subject's namespace alone (ping:subject, owamp:subject).
            Optional<Characteristic> c = Characteristic.lookup(toolNamespace);
            if (c.isPresent()) {
                characteristic = c.get();
                eventType = toolNamespace;
            } else {
                unknown.add(toolNamespace);
            }
        }
        if (adviceType != null && characteristic == null) {
            return new Resolved(data.metadataIdRef(), null, adviceEventType, subject, params, select, key, adviceType);
        }
        if (characteristic == null && (key == null || !unknown.isEmpty()) && (eventTypeRequired || !unknown.isEmpty())) {
            if (!unknown.isEmpty()) {
                throw new NmwgException(ErrorCodes.EVENT_TYPE_NOT_SUPPORTED, "eventType '" + unknown.get(0)
                        + "' is not supported; supported: " + supported());
            }
            throw new NmwgException(ErrorCodes.EVENT_TYPE_NOT_SUPPORTED, "metadata '" + data.metadataIdRef()
                    + "' names no eventType; supported: " + supported());
        }
        return new Resolved(data.metadataIdRef(), characteristic, eventType, subject, params, select, key);
    }

    /** Deepest reference chain followed; a message's chains are short, so this only stops abuse. */
    static final int MAX_CHAIN = 64;

    /**
     * The metadata a data trigger refers to and everything they refer to, nearest first: each
     * metadata's own metadataIdRef, then its subject's (a select:subject naming the base
     * metadata while the metadata chains to a select one: perfSONAR's merge chaining), in any
     * order and to any depth up to MAX_CHAIN. A metadata reached twice by different routes is
     * taken once; one reached again on its own route is a cycle.
     */
    private static void walk(String id, RequestMessage.Data data, Map<String, RequestMessage.Metadata> byId,
                             java.util.LinkedHashSet<String> route, Set<String> seen, List<RequestMessage.Metadata> out)
            throws NmwgException {
        if (route.contains(id)) {
            throw new NmwgException(ErrorCodes.STRUCTURE, "metadata references form a cycle through '" + id + "'");
        }
        if (route.size() >= MAX_CHAIN) {
            throw new NmwgException(ErrorCodes.STRUCTURE, "metadata references are chained deeper than " + MAX_CHAIN);
        }
        if (!seen.add(id)) {
            return;
        }
        RequestMessage.Metadata md = byId.get(id);
        if (md == null) {
            throw new NmwgException(ErrorCodes.STRUCTURE, (route.isEmpty() ? "data '" + data.id() + "'" : "a metadata")
                    + " refers to metadata '" + id + "', which is not in the message");
        }
        out.add(md);
        route.add(id);
        if (md.metadataIdRef() != null) {
            walk(md.metadataIdRef(), data, byId, route, seen, out);
        }
        if (md.subjectIdRef() != null && !md.subjectIdRef().equals(md.metadataIdRef())) {
            walk(md.subjectIdRef(), data, byId, route, seen, out);
        }
        route.remove(id);
    }

    /** A subject namespace that names a tool (not base, select or topology). */
    private static boolean isToolNamespace(String ns) {
        return ns != null && !ns.equals(Namespaces.BASE) && !ns.equals(Namespaces.SELECT)
                && !ns.equals(Namespaces.TOPOLOGY);
    }

    static String supported() {
        StringBuilder sb = new StringBuilder();
        for (Characteristic c : Characteristic.values()) {
            if (sb.length() > 0) {
                sb.append(", ");
            }
            sb.append(c.dottedName());
        }
        return sb.toString();
    }

}
