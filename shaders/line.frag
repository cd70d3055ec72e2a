// Flat colour; the grid fades out towards its rim (u_fade: centre, radius).
in vec3 v_world;

uniform vec4 u_color;
uniform vec4 u_fade;

out vec4 frag_color;

void main()
{
  float a = u_color.a;
  if (u_fade.w > 0.0)
    a *= 1.0 - smoothstep(0.45, 1.0, length(v_world - u_fade.xyz) / u_fade.w);
  frag_color = vec4(u_color.rgb, a);
}
