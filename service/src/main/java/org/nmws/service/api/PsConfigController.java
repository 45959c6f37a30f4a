package org.nmws.service.api;

import java.util.Map;
import org.nmws.service.mesh.Mesh;
import org.nmws.service.psconfig.MeshToPsConfig;
import org.nmws.service.psconfig.PsConfigAgent;
import org.springframework.http.ResponseEntity;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * GET /api/psconfig: the pSConfig template this point runs its share of (source, last read,
 * the error of a refused one), the schedules made for each task, the tasks and pairs it does
 * not run with why, and the template's archives.
 */
@RestController
class PsConfigController {
    private final ObjectProvider<PsConfigAgent> agent;
    private final Mesh mesh;

    PsConfigController(ObjectProvider<PsConfigAgent> agent, Mesh mesh) {
        this.agent = agent;
        this.mesh = mesh;
    }

    /**
     * GET /api/psconfig/from-mesh: this point's mesh file as a pSConfig template, so the mesh can
     * move to pSConfig (nmws.psconfig.template) unchanged; the groups it cannot express are in
     * its _meta "nmws-not-converted" and counted in the header X-Nmws-Not-Converted.
     */
    @GetMapping(path = "/api/psconfig/from-mesh", produces = "application/json")
    ResponseEntity<Object> fromMesh() {
        if (mesh.points().isEmpty()) {
            return ResponseEntity.status(404).body(Map.of("error", "this point has no mesh file (nmws.mesh.file)"));
        }
        MeshToPsConfig.Converted c = MeshToPsConfig.convert(mesh);
        return ResponseEntity.ok().header("X-Nmws-Not-Converted", Integer.toString(c.notConverted().size()))
                .body(c.template());
    }

    @GetMapping(path = "/api/psconfig", produces = "application/json")
    Map<String, Object> state() {
        PsConfigAgent a = agent.getIfAvailable();
        return a == null ? Map.of("configured", false) : a.view();
    }
}
