package org.nmws.service.api;

import java.util.Map;
import org.nmws.service.grid.MeshGrid;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * GET /api/grid: the whole mesh's grid from this point, each cell its pair's test definitions
 * with their latest result, its age and state; ?scope=local: this point's own definitions only
 * (what other points read).
 */
@RestController
class GridController {
    private final MeshGrid grid;

    GridController(MeshGrid grid) {
        this.grid = grid;
    }

    @GetMapping(path = "/api/grid", produces = "application/json")
    ResponseEntity<Map<String, Object>> grid(@RequestParam(defaultValue = "mesh") String scope) {
        if (!scope.equals("mesh") && !scope.equals("local")) {
            return ResponseEntity.badRequest().body(Map.of("error", "scope is mesh (the default) or local, not '"
                    + org.nmws.service.observation.Params.echo(scope) + "'"));
        }
        return ResponseEntity.ok(grid.grid(scope.equals("local")));
    }
}
