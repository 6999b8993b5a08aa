# fp4lab plot 'gaps' (written by fp4lab; data inline).
# Re-render: gnuplot gaps.gp   or   gnuplot -e "fmt='svg'" gaps.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'gaps.' . fmt
if (fmt eq 'svg') {
  set terminal svg noenhanced size 960,600 dynamic background rgb 'white' font 'Sans,12'
} else {
  set terminal pngcairo noenhanced size 960,600 font 'Sans,10'
}
set output out
set encoding utf8
set grid lc rgb '#dddddd'
set key below center horizontal Left reverse noautotitle
set offsets 0, 0, graph 0.06, graph 0.06
$gaps << EOD
# x conv conv_lo conv_hi final final_lo final_hi label
0 0.0458345572 0.0322397023 0.0594294122 0.0431786032 0.029645458 0.0567117484 "arm=+fp4"
1 0.0174906815 0.00582444541 0.0291569176 0.0139690258 0.00158271403 0.0263553376 "arm=+fp4+e4m3_scales"
2 0.0203957673 0.0134726058 0.0273189288 0.0171573592 0.00413457417 0.0301801442 "arm=+fp4+e4m3_scales+block16"
3 0.0196763556 -0.0209537977 0.0603065088 0.0168874303 -0.0272269789 0.0610018395 "arm=+fp4+e4m3_scales+block16+weights_2d"
4 0.00962151767 -0.0113174601 0.0305604954 0.00842559614 -0.0141679535 0.0310191458 "arm=+fp4+e4m3_scales+block16+weights_2d+rht"
5 0.0161719492 0.00577176036 0.026572138 0.0143507542 -0.000967599148 0.0296691075 "arm=+fp4+e4m3_scales+block16+weights_2d+rht+sr"
6 0.0176887167 -0.0194724227 0.054849856 0.0153595488 -0.0236759285 0.0543950262 "arm=+fp4+e4m3_scales+block16+weights_2d+rht+sr+bf16_operands"
7 0.0501571305 0.027747896 0.072566365 0.051732062 0.021928432 0.0815356921 "arm=+fp4+bf16_operands"
8 0.0471313335 0.0350245695 0.0592380976 0.0441559999 0.0380412322 0.0502707676 "arm=+fp4+sr+bf16_operands"
9 0.0401732055 0.0262074428 0.0541389681 0.0404882848 0.0287767226 0.0521998471 "arm=+fp4+rht+sr+bf16_operands"
10 0.0463388794 0.0403619137 0.0523158451 0.04554795 0.0361523291 0.0549435709 "arm=+fp4+weights_2d+rht+sr+bf16_operands"
11 0.0378519386 0.00355815679 0.0721457204 0.0374128168 0.00447912484 0.0703465088 "arm=+fp4+block16+weights_2d+rht+sr+bf16_operands"
EOD
set title "Loss gap to the baseline per config\nmean over seeds; bars: 95% CI (Student t; none with one seed)"
set xrange [-0.6:11.6]
set xtics rotate by -25 left
set bmargin 8
set xzeroaxis lt 1 lc rgb '#555555'
set ylabel 'gap to baseline (nats/token)'
set xlabel 'config'
plot $gaps using ($1-0.08):2:3:4:xtic(8) with yerrorbars pt 7 ps 1.2 lc rgb '#0072B2' title 'converged window: last 25% of paired steps (train loss)', \
     $gaps using ($1+0.08):5:6:7 with yerrorbars pt 5 ps 1.1 lc rgb '#D55E00' title 'final loss (validation if logged, else smoothed train)'
unset output
