// Unlit lines in world coordinates (grid, traces).
layout(location = 0) in vec3 a_pos;

uniform mat4 u_mv;
uniform mat4 u_proj;

out vec3 v_world;

void main()
{
  v_world = a_pos;
  gl_Position = u_proj * (u_mv * vec4(a_pos, 1.0));
}
