/* lw_chain.c: the N-link pendulum chain used by linkwright-cli
 * generate-chain and the benchmarks. */
#include "linkwright.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

lw_desc *lw_desc_chain(int n, int spatial)
{
  lw_desc *d = lw_desc_new();
  char name[64], prev[64] = "ground", text[96];
  snprintf(text, sizeof text, "%d-link pendulum chain", n);
  d->name = strdup(text);
  d->description = strdup("Uniform links of 1 m and 1 kg, revolute joints about z, released at rest "
                          "from the horizontal.");
  d->planar = !spatial;
  d->solver.t_end = 1.0;
  /* the softest constraint mode of a chain scales as 1/N^2: the penalty
   * grows with N^2 so that the augmented Lagrangian iteration keeps
   * converging in a few iterations (1e9 at N = 10, 1e13 at N = 1000), up to
   * the largest the solver accepts at the default step (alpha h^2/4 = 1e7
   * times the largest mass entry, 1 kg: 4e13, from N = 2000) */
  d->solver.alpha = fmin(1e9 * fmax(1.0, ((double)n / 10.0) * ((double)n / 10.0)), 4e13);
  for (int i = 0; i < n; i++) {
    snprintf(name, sizeof name, "link%d", i + 1);
    lw_body_desc *b = lw_desc_add_body(d, name);
    b->mass = 1.0;
    b->com[0] = 0.5;
    double I = 1.0 / 12.0;
    if (spatial) {
      b->inertia[0] = 1e-3;
      b->inertia[1] = I;
      b->inertia[2] = I;
    } else {
      b->inertia[2] = I;
    }
    b->position[0] = (double)i;
    double tip[3] = {1, 0, 0}, base[3] = {0, 0, 0};
    lw_body_add_point(b, "base", base);
    lw_body_add_point(b, "tip", tip);
    lw_geom_desc *g = lw_body_add_geom(b, LW_GEOM_BAR);
    g->to[0] = 1.0;
    g->size[0] = 0.05;
    char jn[64];
    snprintf(jn, sizeof jn, "J%d", i + 1);
    lw_joint_desc *j = lw_desc_add_joint(d, jn, LW_JOINT_REVOLUTE, prev, name);
    j->has_at = 1;
    j->at[0] = (double)i;
    j->has_gaxis = spatial;
    j->gaxis[2] = 1.0;
    snprintf(prev, sizeof prev, "%s", name);
  }
  lw_output_desc *o = lw_desc_add_output(d, "tip", LW_OUT_POSITION);
  o->body = strdup(prev);
  lw_place_set_ref(&o->place, "tip");
  lw_desc_add_output(d, "energy", LW_OUT_TOTAL_ENERGY);
  return d;
}
