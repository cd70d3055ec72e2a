/* lw-mesh.h: the unit meshes the renderer scales into place (no GL here).
 *
 * Every mesh lives in one vertex array (position, normal: 6 floats a
 * vertex) and one index array of triangles, counter-clockwise seen from
 * outside, so that a single static buffer pair serves every draw:
 *   cube      [-1, 1]^3, flat faces
 *   cylinder  radius 1, z from 0 to 1, with caps
 *   sphere    radius 1
 *   cone      base radius 1 at z = 0, apex at z = 1, with a base
 *   coil      a (s, phi) parameter grid: s in [0, 1] along the helix,
 *             phi in [0, 2 pi] around the wire; the vertex shader bends it
 *   screen    one triangle covering clip space (background)
 */
#ifndef LW_MESH_H
#define LW_MESH_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  LW_MESH_CUBE,
  LW_MESH_CYLINDER,
  LW_MESH_SPHERE,
  LW_MESH_CONE,
  LW_MESH_COIL,
  LW_MESH_SCREEN,
  LW_MESH_N
} lw_mesh_id;

/* the coil grid resolves this many turns smoothly */
#define LW_COIL_MAX_TURNS 12

typedef struct {
  float *vertices;      /* nvertices x 6 */
  int nvertices;
  unsigned *indices;    /* triangles */
  int nindices;
  int first[LW_MESH_N]; /* first index of each mesh */
  int count[LW_MESH_N]; /* its number of indices */
} lw_mesh_set;

/* returns 0 on allocation failure */
int lw_mesh_set_build(lw_mesh_set *s);
void lw_mesh_set_clear(lw_mesh_set *s);

#ifdef __cplusplus
}
#endif
#endif
