package org.nmws.service.measure;

import org.nmws.service.observation.Unit;

/**
 * One figure a kind keeps, as every reader shows it: its name in the summary, its unit, and,
 * for a figure that stands for its kind in a mesh grid's cell, the cell's group (rttMs,
 * lossPercent, owdMs, throughputMbps) and the group's short label; for a figure the
 * dashboard draws on a path's charts, the chart (by the same group names) and what to call
 * its series where a chart mixes kinds. Declared by the kind; the dashboard and the mesh
 * overview read them at /api/kinds instead of lists of their own.
 *
 * @param pattern whether name is a regular expression naming a numbered family (one per hop, step, stream)
 * @param group the grid group this figure heads, or null
 * @param label the group's label in a grid cell, or null
 * @param chart the path chart this figure is drawn on, or null
 * @param chartLabel its series' name in a chart that mixes kinds, or null
 */
public record Figure(String name, Unit unit, boolean pattern, String group, String label, String chart, String chartLabel) {

    /** A figure no grid cell or chart shows. */
    public Figure(String name, Unit unit, boolean pattern) {
        this(name, unit, pattern, null, null, null, null);
    }

    /** Whether it heads a group of a grid cell. */
    public boolean headline() {
        return group != null;
    }
}
