package org.nmws.client.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table: a header row and rows, columns padded to their widest cell. */
final class Table {
    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();

    Table(List<String> header) {
        this.header = List.copyOf(header);
    }

    Table row(List<String> cells) {
        if (cells.size() != header.size()) {
            throw new IllegalArgumentException("row of " + cells.size() + " cells in a table of " + header.size() + " columns");
        }
        rows.add(cells.stream().map(c -> c == null ? "" : c).toList());
        return this;
    }

    boolean isEmpty() {
        return rows.isEmpty();
    }

    void print(PrintWriter out) {
        int[] width = new int[header.size()];
        for (int i = 0; i < width.length; i++) {
            width[i] = header.get(i).length();
            for (List<String> r : rows) {
                width[i] = Math.max(width[i], r.get(i).length());
            }
        }
        line(out, header, width);
        for (List<String> r : rows) {
            line(out, r, width);
        }
    }

    private static void line(PrintWriter out, List<String> cells, int[] width) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            String c = cells.get(i);
            b.append(c);
            if (i < cells.size() - 1) {
                b.append(" ".repeat(width[i] - c.length() + 2));
            }
        }
        out.println(b.toString().stripTrailing());
    }
}
