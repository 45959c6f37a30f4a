package org.nmws.service.nmwg;

import org.nmws.service.observation.Times;
import org.nmws.service.usecase.ErrorCodes;

import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * What a select filter asks of stored data: a time window (startTime/endTime, or time
 * with gte/gt/lte/lt, as unix seconds or ISO 8601) and optional aggregation
 * (consolidationFunction over buckets of resolution seconds), as perfSONAR MAs read it.
 *
 * @param from inclusive start, or null
 * @param to inclusive end, or null
 * @param function the consolidation function, or null for every observation as kept
 * @param resolutionSeconds bucket width; 0 means one bucket over the whole window
 */
record Select(Instant from, Instant to, Consolidation.Function function, long resolutionSeconds) {
    /** Widest bucket accepted: a year. Wider asks are almost always a unit mistake. */
    static final long MAX_RESOLUTION = 366L * 24 * 3600;

    static final Select NONE = new Select(null, null, null, 0);

    boolean consolidates() {
        return function != null;
    }

    /** Strict parse: a malformed time, function or resolution is an error naming the parameter. */
    static Select parse(List<RequestMessage.Param> params) throws NmwgException {
        Instant from = null;
        Instant to = null;
        Consolidation.Function function = null;
        long resolution = 0;
        boolean resolutionGiven = false;
        for (RequestMessage.Param p : params) {
            String op = p.operator() == null ? "" : p.operator().trim().toLowerCase(Locale.ROOT);
            switch (p.name()) {
                case "startTime" -> from = parseTime("startTime", p.value());
                case "endTime" -> to = parseTime("endTime", p.value());
                case "time" -> {
                    switch (op) {
                        case "gte", "gt" -> from = parseTime("time " + op, p.value());
                        case "lte", "lt" -> to = parseTime("time " + op, p.value());
                        case "eq", "" -> {
                            from = parseTime("time", p.value());
                            to = from;
                        }
                        default -> throw new NmwgException(ErrorCodes.PARAMETER, "select parameter time has operator '"
                                + p.operator() + "'; supported: gte, gt, lte, lt, eq");
                    }
                }
                case "consolidationFunction" -> function = Consolidation.Function.parse(p.value());
                case "resolution" -> {
                    resolution = resolution(p.value());
                    resolutionGiven = true;
                }
                default -> { } // other select parameters (cf. perfSONAR's eventNameSpaceSynchronization) change nothing here
            }
        }
        if (from != null && to != null && from.isAfter(to)) {
            throw new NmwgException(ErrorCodes.PARAMETER, "select startTime " + from + " is after endTime " + to);
        }
        if (resolutionGiven && function == null) {
            function = Consolidation.Function.AVERAGE; // RRD-style archives default to AVERAGE
        }
        return new Select(from, to, function, resolution);
    }

    private static long resolution(String text) throws NmwgException {
        String t = text == null ? "" : text.trim();
        long r;
        try {
            if (!t.matches("[+-]?\\d{1,18}")) { // ASCII digits only: parseLong takes other scripts' too
                throw new NumberFormatException();
            }
            r = Long.parseLong(t);
        } catch (NumberFormatException e) {
            throw new NmwgException(ErrorCodes.PARAMETER, "select resolution is '" + t
                    + "': expected whole seconds 1.." + MAX_RESOLUTION);
        }
        if (r < 1 || r > MAX_RESOLUTION) {
            throw new NmwgException(ErrorCodes.PARAMETER, "select resolution is " + r + ": must be 1.." + MAX_RESOLUTION + " s");
        }
        return r;
    }

    /** A bad time is an error.common.parameter result. */
    private static java.time.Instant parseTime(String name, String text) throws NmwgException {
        try {
            return Times.parse(name, text);
        } catch (IllegalArgumentException e) {
            throw new NmwgException(ErrorCodes.PARAMETER, e.getMessage());
        }
    }
}
