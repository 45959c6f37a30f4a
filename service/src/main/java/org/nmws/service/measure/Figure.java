package org.nmws.service.measure;

import org.nmws.service.observation.Unit;

/**
 * One figure a kind keeps, as every reader shows it: its name in the summary, its unit, and,
 * for a figure that stands for its kind in a mesh grid's cell, the cell's group (rttMs,
 * lossPercent, owdMs, throughputMbps) and the group's short label. Declared by the kind; the
 * dashboard and the mesh overview read them at /api/kinds instead of lists of their own.
 *
 * @param pattern whether name is a regular expression naming a numbered family (one per hop, step, stream)
 * @param group the grid group this figure heads, or null
 * @param label the group's label in a grid cell, or null
 */
public record Figure(String name, Unit unit, boolean pattern, String group, String label) {

    /** Whether it heads a group of a grid cell. */
    public boolean headline() {
        return group != null;
    }
}
