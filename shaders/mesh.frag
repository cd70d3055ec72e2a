// Blinn-Phong in view space: a headlight slightly above-left of the eye, a
// weaker fill light from the lower right and a sky/ground ambient term.
// Colours come in as sRGB, are lit in linear space and converted back.
// The pick pass writes the element's id colour instead.
in vec3 v_pos;
in vec3 v_normal;

uniform vec4 u_color;       // sRGB, alpha
uniform float u_highlight;  // selection: 0..1
uniform vec4 u_pick;        // pick pass: the element's id colour
uniform int u_picking;

out vec4 frag_color;

const vec3 ACCENT = vec3(0.208, 0.518, 0.894); // GNOME blue #3584e4

void main()
{
  if (u_picking != 0) {
    frag_color = u_pick;
    return;
  }
  vec3 n = normalize(v_normal);
  if (!gl_FrontFacing)
    n = -n;
  vec3 v = normalize(-v_pos);
  vec3 base = pow(u_color.rgb, vec3(2.2));
  vec3 accent = pow(ACCENT, vec3(2.2));
  base = mix(base, accent, 0.5 * u_highlight);

  vec3 l1 = normalize(vec3(-0.2, 0.3, 1.0));
  vec3 l2 = normalize(vec3(0.7, -0.45, 0.35));
  float d1 = max(dot(n, l1), 0.0), d2 = max(dot(n, l2), 0.0);
  float s1 = pow(max(dot(n, normalize(l1 + v)), 0.0), 90.0);
  float hemi = 0.5 + 0.5 * n.y;
  vec3 ambient = mix(vec3(0.10, 0.10, 0.11), vec3(0.22, 0.23, 0.26), hemi);
  vec3 c = base * (ambient + 0.78 * d1 + 0.28 * d2) + vec3(0.16 * s1);
  float rim = pow(1.0 - max(dot(n, v), 0.0), 2.0);
  c += accent * (0.25 + 0.9 * rim) * u_highlight;
  frag_color = vec4(pow(clamp(c, 0.0, 1.0), vec3(1.0 / 2.2)), u_color.a);
}
