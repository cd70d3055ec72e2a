#!/usr/bin/env python3
"""Writes tests/data/suspension.json (argument 1; argument 2 the horizon, 3 s): the double-wishbone suspension of
Ebrahimi et al. (seed 001, Sec. 6.3), reconstructed from its Tables 1-3.
Every datum the paper does not give is chosen here and stated in the
model's description and in docs/suspension.md."""
import json, math, sys

# Table 3
E, RHO, D_OUT, D_IN = 2e11, 7800.0, 0.030, 0.020
AREA = math.pi / 4 * (D_OUT ** 2 - D_IN ** 2)
SIGMA = 400e6
CM = [0.243, 0.0, 0.365]
# corner: (name, wheel CM, chassis points (upper 2, lower 2), shock index)
CORNERS = [
    ("FR", [-1.110, 0.680, 0.075], [1, 2, 3, 4], 1),
    ("RR", [0.370, 0.560, 0.125], [5, 6, 7, 8], 2),
    ("RL", [0.370, -0.560, 0.125], [9, 10, 11, 12], 3),
    ("FL", [-1.110, -0.680, 0.075], [13, 14, 15, 16], 4),
]
# Table 1: point i -> (initial, lower, upper)
P = {
    1: ((-1.270, 0.210, 0.150), (-1.350, 0.100, 0.100), (-1.100, 0.350, 0.300)),
    2: ((-0.960, 0.210, 0.150), (-1.100, 0.100, 0.100), (-0.800, 0.350, 0.300)),
    3: ((-1.270, 0.180, 0.0), (-1.350, 0.100, -0.100), (-1.100, 0.350, 0.100)),
    4: ((-0.960, 0.180, 0.0), (-1.100, 0.100, -0.100), (-0.800, 0.350, 0.100)),
    5: ((0.210, 0.140, 0.250), (0.100, 0.100, 0.100), (0.350, 0.300, 0.300)),
    6: ((0.520, 0.140, 0.250), (0.400, 0.100, 0.100), (0.650, 0.300, 0.300)),
    7: ((0.210, 0.100, 0.0), (0.100, 0.100, -0.100), (0.350, 0.300, 0.100)),
    8: ((0.520, 0.100, 0.0), (0.400, 0.100, -0.100), (0.650, 0.300, 0.100)),
    9: ((0.210, -0.140, 0.250), (0.100, -0.300, 0.100), (0.350, -0.100, 0.300)),
    10: ((0.520, -0.140, 0.250), (0.400, -0.300, 0.100), (0.650, -0.100, 0.300)),
    11: ((0.210, -0.100, 0.0), (0.100, -0.300, -0.100), (0.350, -0.100, 0.100)),
    12: ((0.520, -0.100, 0.0), (0.400, -0.300, -0.100), (0.650, -0.100, 0.100)),
    13: ((-1.270, -0.210, 0.150), (-1.350, -0.350, 0.100), (-1.100, -0.100, 0.300)),
    14: ((-0.960, -0.210, 0.150), (-1.100, -0.350, 0.100), (-0.800, -0.100, 0.300)),
    15: ((-1.270, -0.180, 0.0), (-1.350, -0.350, -0.100), (-1.100, -0.100, 0.100)),
    16: ((-0.960, -0.180, 0.0), (-1.100, -0.350, -0.100), (-0.800, -0.100, 0.100)),
}
ZS = {1: 0.3, 2: 0.4, 3: 0.4, 4: 0.3}
K0, C0 = {1: 1e4, 2: 1e4, 3: 1e4, 4: 1e4}, {1: 50, 2: 500, 3: 500, 4: 50}
# Table 2: front d_z = 0.050 sin(2 pi t), rear d_z = 0.075 sin(4 pi t)
EXC = {"F": (0.050, 2 * math.pi), "R": (0.075, 4 * math.pi)}
# chosen (not in the paper)
UPPER_INSET, LOWER_INSET = 0.12, 0.08   # ball joints inboard of the wheel centre (y)
CHASSIS_INERTIA = [42.25, 150.25, 180.0, 0, 0, 0]   # 2.4 x 1.2 x 0.5 m box, 300 kg
WHEEL_INERTIA = [0.379167, 0.625, 0.379167, 0, 0, 0]  # disc r 0.25 m, 0.2 m wide, 20 kg
ROAD_MASS, HUB_MASS = 1.0, 0.1
ELEMENTS = 1


def shortest(i, apex):
    """the beam's shortest length over Table 1's bounds of its chassis point"""
    c = [min(max(apex[k], P[i][1][k]), P[i][2][k]) for k in range(3)]
    return math.dist(c, apex)


def r6(v):
    return [round(x, 6) + 0.0 for x in v]


def build(t_end, elements, name_suffix=""):
    bodies = [{"name": "chassis", "mass": 300, "com": CM, "inertia": CHASSIS_INERTIA,
               "points": {"cm": CM},
               "geometry": [{"type": "box", "center": [-0.37, 0, 0.3], "half_extents": [0.95, 0.2, 0.06],
                             "color": [0.6, 0.65, 0.7]}]}]
    beams, joints, forces, drivers, outputs, params = [], [], [], [], [], []
    variables, stress_terms = [], []
    for corner, wc, pts, si in CORNERS:
        s = 1.0 if wc[1] > 0 else -1.0
        zu = 2 * wc[2]  # upper ball joint at the upper chassis points' height
        upper = [wc[0], wc[1] - s * UPPER_INSET, zu]
        lower = [wc[0], wc[1] - s * LOWER_INSET, 0.0]
        wheel = "wheel_" + corner
        loc = lambda p: r6([p[i] - wc[i] for i in range(3)])
        bodies.append({"name": wheel, "mass": 20, "inertia": WHEEL_INERTIA, "position": wc,
                       "points": {"centre": [0, 0, 0], "upper": loc(upper), "lower": loc(lower)},
                       "geometry": [{"type": "cylinder", "from": [0, -0.1, 0], "to": [0, 0.1, 0], "radius": 0.25,
                                     "color": [0.15, 0.15, 0.15]}]})
        road, hub = "road_" + corner, "hub_" + corner
        bodies.append({"name": road, "mass": ROAD_MASS, "inertia": [0.01, 0.01, 0.01, 0, 0, 0], "position": wc})
        bodies.append({"name": hub, "mass": HUB_MASS, "inertia": [1e-4, 1e-4, 1e-4, 0, 0, 0], "position": wc})
        joints.append({"name": "drive_" + corner, "type": "prismatic", "body1": "ground", "body2": road,
                       "at": wc, "axis": [0, 0, 1]})
        joints.append({"name": "slide_" + corner, "type": "planar", "body1": road, "body2": hub,
                       "at": wc, "axis": [0, 0, 1]})
        joints.append({"name": "hub_" + corner, "type": "spherical", "body1": hub, "body2": wheel,
                       "at": wc})
        amp, om = EXC[corner[0]]
        drivers.append({"name": "road_" + corner, "joint": "drive_" + corner,
                        "function": {"type": "sine", "amplitude": amp, "omega": om}})
        # wishbones: upper (pts[0], pts[1]) -> upper ball joint, lower -> lower
        for wi, (pa, pb, apex, lvl) in enumerate([(pts[0], pts[1], upper, "upper"), (pts[2], pts[3], lower, "lower")]):
            bn = []
            for pi in (pa, pb):
                b = "beam%d" % pi
                bn.append(b)
                beams.append({"name": b, "elements": elements, "start": list(P[pi][0]), "end": apex,
                              "young": E, "density": RHO, "section": "tube", "size": [D_OUT, D_IN]})
                joints.append({"name": "C%d" % pi, "type": "spherical", "body1": "chassis", "body2": b,
                               "at": list(P[pi][0])})
                for tag, sarc in (("root", 0.0), ("mid", round(0.5 * shortest(pi, apex), 4))):
                    on = "force%d_%s" % (pi, tag)
                    outputs.append({"name": on, "type": "beam_force", "body": b, "point": [sarc, 0, 0]})
                    for form, tgt in (("above", SIGMA * AREA), ("below", -SIGMA * AREA)):
                        stress_terms.append({"output": on, "kind": "integral", "form": form,
                                             "target": [tgt], "weight": 1.0 / AREA ** 2})
                for k, ax in enumerate("XYZ"):
                    pn = "%s%d" % (ax, pi)
                    params.append({"name": pn, "bind": ["beams/%s/start/%d" % (b, k), "joints/C%d/at/%d" % (pi, k)],
                                   "value": P[pi][0][k]})
                    variables.append({"parameter": pn, "lower": P[pi][1][k], "upper": P[pi][2][k]})
            joints.append({"name": "weld_%s_%s" % (corner, lvl), "type": "fixed", "body1": bn[0], "body2": bn[1],
                           "at": apex})
            joints.append({"name": "ball_%s_%s" % (corner, lvl), "type": "spherical", "body1": wheel,
                           "body2": bn[0], "at": apex})
        # shock absorber: vertical, from the lower ball joint (z = 0) up to Z1x on the chassis
        sh = "shock%d" % si
        bodies[-3]["points"]["shock"] = loc(lower)
        forces.append({"name": sh, "type": "spring_damper", "body1": "chassis",
                       "point1": [lower[0], lower[1], ZS[si]], "body2": wheel, "point2": "shock",
                       "stiffness": K0[si], "damping": C0[si], "rest_length": ZS[si]})
        zn = "Z%d" % (16 + si)
        params.append({"name": zn, "bind": ["forces/%s/point1/2" % sh, "forces/%s/rest_length" % sh],
                       "value": ZS[si]})
        outputs.append({"name": "shock%d_length" % si, "type": "spring_length", "force": sh})
    for si in range(1, 5):
        params.append({"name": "k%d" % si, "bind": "forces/shock%d/stiffness" % si, "value": K0[si]})
    for si in range(1, 5):
        params.append({"name": "c%d" % si, "bind": "forces/shock%d/damping" % si, "value": C0[si]})
    for si in range(1, 5):
        variables.append({"parameter": "Z%d" % (16 + si), "lower": 0.15, "upper": 0.6})
    for si in range(1, 5):
        variables.append({"parameter": "k%d" % si, "lower": 100, "upper": 30000, "scale": 1e4})
    for si in range(1, 5):
        variables.append({"parameter": "c%d" % si, "lower": 20, "upper": 1000, "scale": 100})
    outputs.insert(0, {"name": "cm", "type": "position", "body": "chassis", "point": "cm"})
    objectives = [
        {"name": "dCM", "terms": [{"output": "cm", "kind": "integral", "form": "square", "target": CM,
                                   "weight": 1e4}]},
        {"name": "stress", "terms": stress_terms},
    ]
    problems = [{"name": "suspension", "objective": "dCM", "variables": variables,
                 "constraints": [{"objective": "stress", "type": "<=", "value": 0}],
                 "algorithm": "auglag", "gradient": "adjoint", "max_evaluations": 60}]
    return {"linkwright": 1, "name": "Double-wishbone suspension" + name_suffix,
            "description": DESCRIPTION, "gravity": [0, 0, 0],
            "solver": {"t_end": t_end, "step": 0.001, "alpha": 1e11},
            "bodies": bodies, "beams": beams, "joints": joints, "forces": forces, "drivers": drivers,
            "outputs": outputs, "objectives": objectives, "parameters": params, "problems": problems}


DESCRIPTION = (
    "The double-wishbone suspension of Ebrahimi et al. (seed 001, Sec. 6.3), reconstructed from its Tables 1-3; "
    "docs/suspension.md gives every choice. From the paper: a 300 kg chassis, four 20 kg wheels at the Table 3 "
    "centres of mass, 16 hollow circular ANCF beams (E = 200 GPa, density 7800 kg/m^3, outer radius 0.015 m, "
    "inner 0.01 m) from the chassis points 1-16 of Table 1, four shock absorbers (k1-k4 = 10000 N/m, c1 = c4 = 50, "
    "c2 = c3 = 500 N s/m) whose chassis ends sit at the heights Z17-Z20, the wheel excitation of Table 2 along z "
    "(front d_z = 0.050 sin(2 pi t), rear 0.075 sin(4 pi t)), 3 s at 1 ms, the "
    "objective dCM = integral of |d_CM|^2 (the chassis centre of mass's displacement; weight 1e4: in cm^2 s, so "
    "that the optimizer sees numbers of order one) and the 60 design "
    "variables X1..Z16, Z17..Z20, k1..k4, c1..c4 with the Table 1 bounds, and the beam stress limit of "
    "+-400 MPa. Chosen here (the paper does not give them): points 1-4 front right, 5-8 rear right, 9-12 rear "
    "left, 13-16 front left, the first two of each four the upper wishbone; each wishbone is a V of two beams "
    "from its two chassis points (spherical joints) to one ball joint on the wheel, where the two beams are "
    "welded (point and angle between their slopes) and one of them is held by the wheel (spherical); the upper "
    "ball joint at the upper chassis points' height (front 0.15 m, rear 0.25 m) 0.12 m inboard of the wheel "
    "centre, the lower one at z = 0 0.08 m inboard; one element per beam; the shock absorber vertical, from the "
    "wheel at the lower ball joint up to the chassis point (same x, y) at height Z17-Z20, rest length its initial "
    "length (= Z, bound to the same parameter); the wheel's centre driven along z only: a 1 kg road body on a "
    "prismatic joint to the ground with the driver, a 0.1 kg hub on a planar joint (normal z) on it and a "
    "spherical joint hub-wheel, so x, y and every rotation of the wheel are free; no gravity (the paper gives "
    "none, and the springs start at their rest lengths); chassis inertia of a 2.4 x 1.2 x 0.5 m box (42.25, "
    "150.25, 180 kg m^2), wheel inertia of a 0.25 m disc 0.2 m wide (0.379, 0.625, 0.379 kg m^2); chassis "
    "points 1-16 are the global 'at' of the chassis joints and the beams' starts (one parameter binds both); the "
    "stress is the axial stress E eps (eps the Green-Lagrange strain) at each beam's chassis end and middle, and "
    "the constraint 'stress' is the integral of the squared excess over +-400 MPa, <= 0 (zero while every "
    "stress stays inside at every step). Problem 'suspension': augmented Lagrangian, 60 evaluations.")

if __name__ == "__main__":
    t_end = float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
    m = build(t_end, ELEMENTS)
    with open(sys.argv[1], "w") as f:
        json.dump(m, f, indent=1)
        f.write("\n")
