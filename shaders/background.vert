// One triangle over the whole viewport; the vertical gradient is
// interpolated, so the fragment shader does nothing per pixel.
layout(location = 0) in vec3 a_pos;

uniform vec3 u_bg_top;
uniform vec3 u_bg_bottom;

out vec3 v_color;

void main()
{
  v_color = mix(u_bg_bottom, u_bg_top, 0.5 * a_pos.y + 0.5);
  gl_Position = vec4(a_pos.xy, 1.0, 1.0);
}
