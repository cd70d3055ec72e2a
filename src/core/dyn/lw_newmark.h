/* lw_newmark.h: the coefficients of the ALI3-P step's Newmark family, the
 * trapezoidal rule (rho_inf = 1) or the generalized-alpha method with
 * numerical damping (rho_inf < 1; Chung & Hulbert 1993, in the form of
 * Arnold & Bruls 2007 that keeps the equations of motion at t_n+1).
 *
 * With the pseudo-acceleration a (docs/methods-numerical-damping.md):
 *   q_n+1 = q_n + h v_n + h^2 (1/2 - beta) a_n + h^2 beta a_n+1
 *   v_n+1 = v_n + h (1 - gamma) a_n + h gamma a_n+1
 *   (1 - alpha_m) a_n+1 + alpha_m a_n = (1 - alpha_f) qdd_n+1 + alpha_f qdd_n
 * so that velocity and acceleration stay affine in q_n+1:
 *   qd_n+1  = c2 q_n+1 + bq q_n + bv v_n + ba a_n
 *   qdd_n+1 = c4 q_n+1 + aq q_n + av v_n + aa a_n + ad qdd_n
 * and, after the projections have set qdd_n+1, the next pseudo-acceleration
 *   a_n+1 = ea qdd_n+1 + en qdd_n + eo a_n.
 * The trapezoidal rule is alpha_m = alpha_f = gamma = 1/2, beta = 1/4:
 * a_n = qdd_n throughout, ba = aa = 0, and the step keeps its own arithmetic
 * (on = 0), so that its results stay bit for bit those without the setting. */
#ifndef LW_NEWMARK_H
#define LW_NEWMARK_H

typedef struct {
  int on; /* rho_inf < 1: the pseudo-acceleration is a state of its own */
  double c2, c4;
  double kh, ch; /* 1/c4 and c2/c4: the Newton matrix M + ch C + kh K */
  double bq, bv, ba;
  double aq, av, aa, ad;
  double ea, en, eo;
  /* the same history split for the sensitivities' increment form: with
   * x = q_n + h v_n + px a_n (the position less its h^2 beta a_n+1),
   * vx = v_n + pv a_n and r = rm a_n + rd qdd_n, the history terms are
   * bq q_n + bv v_n + ba a_n = vx - c2 x and aq q_n + av v_n + aa a_n + ad
   * qdd_n = r - c4 x (trapezoidal rule: px = h^2/4, pv = h/2, r = 0) */
  double px, pv, rm, rd;
} lw_newmark;

/* the coefficients for step h and the spectral radius at infinite
 * frequency rho (0 <= rho <= 1) */
static inline lw_newmark lw_newmark_coefs(double rho, double h)
{
  lw_newmark k = {0};
  if (rho >= 1.0) {
    k.c2 = 2.0 / h;
    k.c4 = 4.0 / (h * h);
    k.kh = 0.25 * h * h;
    k.ch = 0.5 * h;
    k.bq = -k.c2, k.bv = -1.0;
    k.aq = -k.c4, k.av = -2.0 * k.c2, k.ad = -1.0;
    k.ea = 1.0;
    k.px = 0.25 * h * h;
    k.pv = 0.5 * h;
    return k;
  }
  double am = (2.0 * rho - 1.0) / (rho + 1.0), af = rho / (rho + 1.0);
  double gamma = 0.5 + af - am, beta = 0.25 * (gamma + 0.5) * (gamma + 0.5);
  k.on = 1;
  k.c2 = gamma / (h * beta);
  k.c4 = (1.0 - am) / ((1.0 - af) * h * h * beta);
  k.kh = 1.0 / k.c4;
  k.ch = k.c2 / k.c4;
  k.bq = -k.c2;
  k.bv = 1.0 - gamma / beta;
  k.ba = h * (1.0 - 0.5 * gamma / beta);
  k.aq = -k.c4;
  k.av = -k.c4 * h;
  k.aa = am / (1.0 - af) - k.c4 * h * h * (0.5 - beta);
  k.ad = -af / (1.0 - af);
  k.ea = (1.0 - af) / (1.0 - am);
  k.en = af / (1.0 - am);
  k.eo = -am / (1.0 - am);
  k.px = h * h * (0.5 - beta);
  k.pv = h * (1.0 - gamma);
  k.rm = am / (1.0 - af);
  k.rd = -af / (1.0 - af);
  return k;
}

#endif
