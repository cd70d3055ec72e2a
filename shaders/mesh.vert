// Lit geometry, drawn instanced: one draw per mesh kind, the placement
// and colour of each element in per-instance attributes.  u_mode selects
// how a vertex is placed:
//   0 mesh: a_pos / a_normal in the model frame
//   1 coil: a_pos = (s, phi, 0), s in [0, 1] along a helix of
//           a_coil = (turns, coil radius, wire radius, length) around the
//           model z axis, phi around the wire (springs, torque arcs)
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec3 a_normal;
// per instance
layout(location = 2) in mat4 a_mv;     // model-view (locations 2..5)
layout(location = 6) in mat3 a_nrm;    // normal matrix of a_mv (6..8)
layout(location = 9) in vec4 a_color;  // linear colour and alpha, or the pick id colour
layout(location = 10) in vec4 a_rim;   // selection rim light colour; w: coil ramp
layout(location = 11) in vec4 a_coil;

uniform int u_mode;
uniform mat4 u_proj;   // projection (a pick window folded in when picking)
uniform vec4 u_extrude;    // halo: (pixels, 2 / width, 2 / height, mesh centre z)

out vec3 v_pos;     // view space
out vec3 v_normal;  // view space
flat out vec4 v_color;
flat out vec3 v_rim;

const float TAU = 6.28318530718;

vec3 helix(float s)
{
  float ramp = 1.0;
  if (a_rim.w > 0.5) // the coil radius goes to 0 at both ends
    ramp = smoothstep(0.0, 0.07, s) * smoothstep(0.0, 0.07, 1.0 - s);
  float th = TAU * a_coil.x * s;
  float r = a_coil.y * ramp;
  return vec3(r * cos(th), r * sin(th), a_coil.w * s);
}

void main()
{
  vec3 p = a_pos, n = a_normal;
  v_color = a_color;
  v_rim = a_rim.xyz;
  if (u_mode == 1) {
    float s = a_pos.x, phi = a_pos.y;
    vec3 c = helix(s);
    vec3 t = normalize(helix(s + 0.0005) - helix(s - 0.0005));
    float th = TAU * a_coil.x * s;
    vec3 radial = vec3(cos(th), sin(th), 0.0);
    vec3 nn = normalize(radial - t * dot(radial, t));
    vec3 bb = cross(t, nn);
    n = cos(phi) * nn + sin(phi) * bb;
    p = c + a_coil.z * n;
  }
  vec4 pv = a_mv * vec4(p, 1.0);
  v_pos = pv.xyz;
  v_normal = a_nrm * n;
  gl_Position = u_proj * pv;
#ifdef LW_HALO
  // Selection halo (compiled as a separate program): push the silhouette
  // out by u_extrude.x pixels.  Meshes move each vertex along the screen
  // images of the model axes, weighted by its position relative to the
  // mesh centre (0, 0, u_extrude.w), which grows a thin bar's outline
  // evenly; a face normal would be edge-on there.  Coils use the normal.
  vec2 off = vec2(0.0);
  if (u_mode == 1) {
    off = v_normal.xy;
  } else {
    vec3 q = p - vec3(0.0, 0.0, u_extrude.w);
    if (u_extrude.w > 0.0)
      q.z *= 2.0;
    // an axis seen end-on contributes little (its direction is noise)
    vec2 c0 = gl_Position.xy / gl_Position.w, d[3];
    float len[3], longest = 0.0;
    for (int i = 0; i < 3; i++) {
      vec3 e = vec3(0.0);
      e[i] = 1e-3;
      vec4 c1 = u_proj * (a_mv * vec4(p + e, 1.0));
      d[i] = (c1.xy / c1.w - c0) / u_extrude.yz;
      // foreshortening: projected length per unit of the axis's own length
      len[i] = length(d[i]) / max(length(a_mv[i].xyz), 1e-20);
      longest = max(longest, len[i]);
    }
    for (int i = 0; i < 3; i++)
      if (len[i] > 0.0)
        off += q[i] * clamp(len[i] / (0.25 * longest), 0.0, 1.0) * normalize(d[i]);
  }
  if (dot(off, off) > 1e-12)
    gl_Position.xy += (u_mode == 1 ? normalize(off) : off) * u_extrude.x * u_extrude.yz * gl_Position.w;
#endif
}
