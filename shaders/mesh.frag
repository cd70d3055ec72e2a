// Blinn-Phong in view space: a headlight slightly above-left of the eye, a
// weaker fill light from the lower right and a sky/ground ambient term.
// Lighting is done in (approximately) linear space: the renderer squares
// the sRGB colour and the result is square-rooted here (gamma 2, close to
// sRGB and much cheaper than pow() on a software rasteriser).
// The pick pass writes the element's id colour instead.
in vec3 v_pos;
in vec3 v_normal;
flat in vec4 v_color;       // linear colour (selection tint applied), alpha; pick pass: the id colour
flat in vec3 v_rim;         // selection: rim light colour (0: none)

uniform int u_picking;

out vec4 frag_color;

const vec3 L1 = vec3(-0.1907, 0.2860, 0.9391);  // normalize(-0.2, 0.3, 1)
const vec3 L2 = vec3(0.7868, -0.5058, 0.3934);  // normalize(0.7, -0.45, 0.35)

void main()
{
#ifdef LW_HALO
  frag_color = vec4(sqrt(v_color.rgb), 1.0); // the selection outline: flat
  return;
#endif
  if (u_picking != 0) {
    frag_color = v_color;
    return;
  }
  vec3 n = normalize(v_normal);
  if (!gl_FrontFacing)
    n = -n;
  vec3 v = normalize(-v_pos);
  float d1 = max(dot(n, L1), 0.0), d2 = max(dot(n, L2), 0.0);
  float h = max(dot(n, normalize(L1 + v)), 0.0);
  float h2 = h * h, h4 = h2 * h2, h16 = h4 * h4 * h4 * h4, spec = h16 * h16 * h16; // h^48
  vec3 ambient = mix(vec3(0.10, 0.10, 0.11), vec3(0.22, 0.23, 0.26), 0.5 + 0.5 * n.y);
  vec3 c = v_color.rgb * (ambient + 0.78 * d1 + 0.28 * d2) + vec3(0.14 * spec);
  float rim = 1.0 - max(dot(n, v), 0.0);
  c += v_rim * (0.25 + 0.9 * rim * rim);
  frag_color = vec4(sqrt(clamp(c, 0.0, 1.0)), v_color.a);
}
