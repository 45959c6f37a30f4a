package org.nmws.service.nmwg;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.nmws.service.archive.ObservationQuery;
import org.nmws.service.archive.PageKey;
import org.nmws.service.archive.Series;
import org.nmws.service.archive.SeriesKeys;
import org.nmws.service.archive.SeriesQuery;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.nmwg.MetadataChains.Resolved;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.Params;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.usecase.ErrorCodes;
import org.nmws.service.usecase.StoredResults;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.w3c.dom.Element;

/**
 * NMWG v2's answers from the archive: SetupDataRequest by subject, by series key or by one
 * observation's key, filtered and consolidated by its select chain, with raw frames charged to
 * the answer's budget as they are read; MetadataKeyRequest and DataInfoRequest list the series.
 */
final class StoredAnswers {
    private static final Logger log = LoggerFactory.getLogger(StoredAnswers.class);
    private static final int MAX_STORED_RESULTS = StoredResults.MAX_RESULTS;
    private static final int MAX_CONSOLIDATED = StoredResults.MAX_CONSOLIDATED;
    private static final int MAX_SERIES = StoredResults.MAX_SERIES;

    private final StoredResults stored;
    private final MeasurementService measurements;

    StoredAnswers(StoredResults stored, MeasurementService measurements) {
        this.stored = stored;
        this.measurements = measurements;
    }

    void setupData(NmwgWriter w, Resolved r) throws NmwgException {
        boolean raw = NmwgException.strict(() -> Params.bool(r.parameters(), "raw"));
        Select select = Select.parse(r.select());
        if (r.key() != null) {
            setupDataByKey(w, r, select, raw);
            return;
        }
        if (r.subject() == null) {
            throw new NmwgException(ErrorCodes.SUBJECT, "SetupDataRequest needs a subject with an endPointPair or a key");
        }
        Characteristic.ProbeTest test = NmwgException.strict(() -> r.characteristic().testFor(r.parameters()));
        Endpoint fromHost = test == Characteristic.ProbeTest.UTILIZATION ? null : SubjectReader.sourceOnly(r.subject());
        if (fromHost != null) { // everything measured from a host, to anywhere
            ObservationQuery q = new ObservationQuery(test, null, fromHost.host(), select.from(), select.to(),
                    raw && !select.consolidates(), select.consolidates() ? MAX_CONSOLIDATED : MAX_STORED_RESULTS);
            answerStored(w, r.metadataId(), r.eventType(), r.characteristic().dottedName(), null, null, q, select, raw, r.parameters());
            return;
        }
        if (SubjectReader.emptyPair(r.subject())) {
            everyPath(w, r, test, select, raw);
            return;
        }
        PathSubject subject = SubjectReader.forTest(r.subject(), test);
        ObservationQuery q = new ObservationQuery(test, subject.dst().host(),
                subject.src() == null ? null : subject.src().host(), select.from(), select.to(),
                raw && !select.consolidates(), select.consolidates() ? MAX_CONSOLIDATED : MAX_STORED_RESULTS);
        answerStored(w, r.metadataId(), r.eventType(), r.characteristic().dottedName(), subject, null, q, select, raw, r.parameters());
    }

    /** A key from an earlier answer: a series key (from MetadataKeyRequest) or one observation's id. */
    private void setupDataByKey(NmwgWriter w, Resolved r, Select select, boolean raw) throws NmwgException {
        if (r.key().isEmpty()) {
            throw new NmwgException(ErrorCodes.MA_QUERY, "the nmwg:key carries no maKey parameter;"
                    + " send back a key from a MetadataKeyRequest answer");
        }
        if (SeriesKeys.isSeriesKey(r.key())) {
            SeriesKeys.Key k = seriesKey(r.key());
            ObservationQuery q = new ObservationQuery(k.test(), k.subject().dst().host(),
                    k.subject().src() == null ? null : k.subject().src().host(), select.from(), select.to(),
                    raw && !select.consolidates(), select.consolidates() ? MAX_CONSOLIDATED : MAX_STORED_RESULTS,
                    k.parameters());
            String et = r.eventType() != null ? r.eventType() : eventTypesOf(k.test()).get(0);
            answerStored(w, r.metadataId(), et, "the series of maKey " + r.key(), k.subject(), r.key(), q, select, raw, r.parameters());
            return;
        }
        long id;
        if (r.key().startsWith(org.nmws.service.usecase.Measure.Ran.HELD_KEY)) {
            // a result answered while the archive was down: found by its result key once written
            java.util.UUID key;
            try {
                key = java.util.UUID.fromString(r.key().substring(org.nmws.service.usecase.Measure.Ran.HELD_KEY.length()));
            } catch (IllegalArgumentException e) {
                throw new NmwgException(ErrorCodes.MA_QUERY, "maKey '" + r.key() + "' is not a key this archive issued");
            }
            java.util.Optional<Long> written = available(() -> stored.idOf(key));
            if (written.isEmpty()) {
                w.status(r.metadataId(), ErrorCodes.SUCCESS_MA_PENDING, "the result of maKey " + r.key() + " is still held at"
                        + " the point that measured it, or was never kept here; ask again when the archive is back");
                return;
            }
            id = written.get();
        } else {
            try {
                id = Long.parseLong(r.key());
            } catch (NumberFormatException e) {
                throw new NmwgException(ErrorCodes.MA_QUERY, "maKey '" + r.key() + "' is not a key this archive issued");
            }
        }
        Observation o = available(() -> stored.byId(id, raw)).orElseThrow(() ->
                new NmwgException(ErrorCodes.MA_QUERY, "maKey '" + r.key() + "' matches nothing in the archive"));
        w.takeFrames(o);
        String et = r.eventType() != null ? r.eventType() : eventTypesOf(o.test()).get(0);
        w.observation(r.metadataId(), et, o, raw, FrameColumns.packed(r.parameters()));
    }

    /** Runs a stored-data query and writes what it found: each observation, consolidated buckets, or no data. */
    private void answerStored(NmwgWriter w, String metadataId, String eventType, String what, PathSubject subject,
                              String maKey, ObservationQuery q, Select select, boolean raw, Map<String, String> parameters)
            throws NmwgException {
        List<Observation> found;
        StoredResults.Found page;
        try {
            // raw frames are charged to the answer's budget one observation at a time
            page = stored.find(q.before(pageKey(parameters)), w::takeFrames);
            found = page.results();
        } catch (StoredResults.Unavailable e) {
            throw new NmwgException(ErrorCodes.MA_QUERY, e.getMessage());
        }
        if (found.isEmpty()) {
            w.noData(metadataId, eventType, subject, "No data in the archive for " + what
                    + (subject != null ? " to " + subject.dst().host() : " from " + q.src())
                    + (select.from() == null ? "" : " from " + select.from())
                    + (select.to() == null ? "" : " to " + select.to()) + ".");
            return;
        }
        if (select.consolidates()) {
            w.consolidated(metadataId, eventType, subject, maKey, select,
                    Consolidation.buckets(found, select.function(), select.resolutionSeconds()),
                    measurements.kind(found.get(0).test())::unit);
        } else {
            w.stored(metadataId, eventType, found, raw, FrameColumns.packed(parameters));
        }
        if (page.cut()) {
            // never cut silently: say how much, and how to ask for the rest
            w.status(metadataId, PARTIAL, "The answer for " + what + " is cut to the newest " + found.size()
                    + " results" + (select.consolidates() ? " consolidated" : "") + " (from " + found.get(0).start()
                    + "); older ones remain: ask again with the parameter " + PAGE_PARAMETER + "="
                    + page.next().encode() + " for the page before them, or with a shorter time range.");
        }
    }

    /** The eventType of the pair that says an answer is cut and how to ask for the rest. */
    static final String PARTIAL = "success.ma.partial";
    /** The request parameter that asks for the page before a cut answer's oldest result. */
    static final String PAGE_PARAMETER = "resultsBefore";

    private static PageKey pageKey(Map<String, String> parameters) throws NmwgException {
        String key = parameters.get(PAGE_PARAMETER);
        if (key == null) {
            return null;
        }
        try {
            return PageKey.decode(key);
        } catch (IllegalArgumentException e) {
            throw new NmwgException(ErrorCodes.PARAMETER, e.getMessage());
        }
    }

    /**
     * MetadataKeyRequest and DataInfoRequest: the series the archive holds that match the
     * subject (src and dst each optional), eventType and parameters, each with its maKey;
     * DataInfoRequest adds how many observations each holds and their time span.
     */
    void describeSeries(NmwgWriter w, Resolved r, boolean dataInfo) throws NmwgException {
        SeriesQuery query;
        if (r.key() != null && SeriesKeys.isSeriesKey(r.key())) {
            SeriesKeys.Key k = seriesKey(r.key());
            query = new SeriesQuery(k.test(), k.subject().src() == null ? null : k.subject().src().host(),
                    k.subject().dst().host(), k.parameters(), MAX_SERIES);
        } else {
            SubjectReader.Ends ends = r.subject() == null ? new SubjectReader.Ends(null, null)
                    : r.characteristic() != null && r.characteristic().test() == Characteristic.ProbeTest.UTILIZATION
                    ? interfaceEnds(r.subject()) : SubjectReader.ends(r.subject());
            Map<String, String> params = new LinkedHashMap<>(r.parameters());
            params.remove("raw"); // reply options, not properties of stored data
            params.remove(FrameColumns.PARAMETER);
            params.remove(PAGE_PARAMETER);
            query = new SeriesQuery(r.characteristic() == null ? null : r.characteristic().test(),
                    ends.src() == null ? null : ends.src().host(), ends.dst() == null ? null : ends.dst().host(),
                    params, MAX_SERIES);
        }
        List<Series> found;
        found = available(() -> stored.series(query));
        if (found.isEmpty()) {
            w.noData(r.metadataId(), r.eventType(), null, "No metadata in the archive matches"
                    + (query.test() == null ? "" : " " + r.characteristic().dottedName())
                    + (query.src() == null ? "" : " from " + query.src())
                    + (query.dst() == null ? "" : " to " + query.dst())
                    + (query.parameters().isEmpty() ? "" : " with parameters " + query.parameters()) + ".");
            return;
        }
        for (Series s : found) {
            List<String> eventTypes = r.eventType() != null ? List.of(r.eventType()) : eventTypesOf(s.test());
            w.series(r.metadataId(), eventTypes, s, SeriesKeys.encode(s), dataInfo);
        }
    }

    /** A series key from a client: one this archive issued, else error.ma.query. */
    private static SeriesKeys.Key seriesKey(String maKey) throws NmwgException {
        try {
            return SeriesKeys.decode(maKey);
        } catch (IllegalArgumentException e) {
            throw new NmwgException(ErrorCodes.MA_QUERY, e.getMessage());
        }
    }

    /** A utilization series is kept under its interface as the dst: an interface subject filters by it. */
    private static SubjectReader.Ends interfaceEnds(Element subject) throws NmwgException {
        if (!SubjectReader.hasInterface(subject)) {
            return SubjectReader.ends(subject);
        }
        return new SubjectReader.Ends(null, SubjectReader.forTest(subject, Characteristic.ProbeTest.UTILIZATION).dst());
    }

    /** The preferred eventType of every characteristic a test yields, registry order. */
    static List<String> eventTypesOf(Characteristic.ProbeTest test) {
        List<String> out = new ArrayList<>();
        for (Characteristic c : Characteristic.answeredBy(test)) {
            out.add(c.preferredEventType());
        }
        return out;
    }


    /**
     * An empty endPointPair asks for every stored path: each path (source, destination) the
     * archive holds for the test is answered as its own pair, up to MAX_SERIES paths.
     */
    private void everyPath(NmwgWriter w, Resolved r, Characteristic.ProbeTest test, Select select, boolean raw)
            throws NmwgException {
        Map<String, String> params = new LinkedHashMap<>(r.parameters());
        params.remove("raw");
        params.remove(FrameColumns.PARAMETER);
        params.remove(PAGE_PARAMETER);
        List<Series> series;
        series = available(() -> stored.series(new SeriesQuery(test, null, null, params, MAX_SERIES)));
        Set<String> paths = new java.util.LinkedHashSet<>();
        boolean any = false;
        for (Series s : series) {
            String src = s.subject().src() == null ? null : s.subject().src().host();
            if (!paths.add(src + " " + s.subject().dst().host())) {
                continue;
            }
            any = true;
            ObservationQuery q = new ObservationQuery(test, s.subject().dst().host(), src, select.from(), select.to(),
                    raw && !select.consolidates(), select.consolidates() ? MAX_CONSOLIDATED : MAX_STORED_RESULTS);
            answerStored(w, r.metadataId(), r.eventType(), r.characteristic().dottedName(), s.subject(), null, q, select, raw, r.parameters());
        }
        if (!any) {
            w.noData(r.metadataId(), r.eventType(), null, "No data in the archive for " + r.characteristic().dottedName()
                    + " on any path.");
        }
    }


    /** A stored-results query; an archive that cannot answer is error.ma.query. */
    private static <T> T available(java.util.function.Supplier<T> query) throws NmwgException {
        try {
            return query.get();
        } catch (StoredResults.Unavailable e) {
            throw new NmwgException(ErrorCodes.MA_QUERY, e.getMessage());
        }
    }
}
