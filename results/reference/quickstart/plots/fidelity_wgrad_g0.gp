# fp4lab plot 'fidelity_wgrad_g0' (written by fp4lab; data inline).
# Re-render: gnuplot fidelity_wgrad_g0.gp   or   gnuplot -e "fmt='svg'" fidelity_wgrad_g0.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'fidelity_wgrad_g0.' . fmt
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
$l0 << EOD
# tokens gain gain gain step
1024 0.965248416 0.965248416 0.965248416 1
331776 1.00493298 1.00493298 1.00493298 324
663552 1.01382385 1.01382385 1.01382385 648
EOD
$l1 << EOD
# tokens gain gain gain step
1024 0.954880069 0.954880069 0.954880069 1
331776 0.972873847 0.972873847 0.972873847 324
663552 0.964472552 0.964472552 0.964472552 648
EOD
$l2 << EOD
# tokens gain gain gain step
1024 0.954359402 0.954359402 0.954359402 1
331776 0.972292105 0.972292105 0.972292105 324
663552 0.963211497 0.963211497 0.963211497 648
EOD
$l3 << EOD
# tokens gain gain gain step
1024 0.925948371 0.925948371 0.925948371 1
331776 0.943740616 0.943740616 0.943740616 324
663552 0.923142731 0.923142731 0.923142731 648
EOD
$l4 << EOD
# tokens gain gain gain step
1024 0.986726681 0.986726681 0.986726681 1
331776 0.93369621 0.93369621 0.93369621 324
663552 0.932708422 0.932708422 0.932708422 648
EOD
$l5 << EOD
# tokens gain gain gain step
1024 0.935336173 0.935336173 0.935336173 1
331776 0.943422417 0.943422417 0.943422417 324
663552 0.904202739 0.904202739 0.904202739 648
EOD
$l6 << EOD
# tokens gain gain gain step
1024 0.984343469 0.984343469 0.984343469 1
331776 0.939811508 0.939811508 0.939811508 324
663552 0.91557469 0.91557469 0.91557469 648
EOD
$l7 << EOD
# tokens gain gain gain step
1024 0.960688472 0.960688472 0.960688472 1
331776 1.01530678 1.01530678 1.01530678 324
663552 1.02135164 1.02135164 1.02135164 648
EOD
$l8 << EOD
# tokens gain gain gain step
1024 0.950158964 0.950158964 0.950158964 1
331776 0.987009138 0.987009138 0.987009138 324
663552 0.971838772 0.971838772 0.971838772 648
EOD
$l9 << EOD
# tokens gain gain gain step
1024 0.949212213 0.949212213 0.949212213 1
331776 0.990648756 0.990648756 0.990648756 324
663552 0.972892255 0.972892255 0.972892255 648
EOD
$l10 << EOD
# tokens gain gain gain step
1024 0.950700839 0.950700839 0.950700839 1
331776 0.962438206 0.962438206 0.962438206 324
663552 0.976288011 0.976288011 0.976288011 648
EOD
$l11 << EOD
# tokens gain gain gain step
1024 0.976906002 0.976906002 0.976906002 1
331776 0.980216354 0.980216354 0.980216354 324
663552 0.979411602 0.979411602 0.979411602 648
EOD
$l12 << EOD
# tokens gain gain gain step
1024 0.940446615 0.940446615 0.940446615 1
331776 0.969495227 0.969495227 0.969495227 324
663552 1.00489804 1.00489804 1.00489804 648
EOD
$l13 << EOD
# tokens gain gain gain step
1024 0.966111163 0.966111163 0.966111163 1
331776 0.963417421 0.963417421 0.963417421 324
663552 1.00194928 1.00194928 1.00194928 648
EOD
$l14 << EOD
# tokens gain gain gain step
1024 0.952471147 0.952471147 0.952471147 1
331776 0.984437466 0.984437466 0.984437466 324
663552 0.995613982 0.995613982 0.995613982 648
EOD
$l15 << EOD
# tokens gain gain gain step
1024 0.948082079 0.948082079 0.948082079 1
331776 0.985839148 0.985839148 0.985839148 324
663552 0.993326316 0.993326316 0.993326316 648
EOD
$l16 << EOD
# tokens gain gain gain step
1024 0.945657551 0.945657551 0.945657551 1
331776 0.978278528 0.978278528 0.978278528 324
663552 0.985180239 0.985180239 0.985180239 648
EOD
$l17 << EOD
# tokens gain gain gain step
1024 0.942661514 0.942661514 0.942661514 1
331776 0.98437945 0.98437945 0.98437945 324
663552 0.949588627 0.949588627 0.949588627 648
EOD
$l18 << EOD
# tokens gain gain gain step
1024 0.977234731 0.977234731 0.977234731 1
331776 0.989542812 0.989542812 0.989542812 324
663552 0.994835436 0.994835436 0.994835436 648
EOD
$l19 << EOD
# tokens gain gain gain step
1024 0.947050065 0.947050065 0.947050065 1
331776 0.961662223 0.961662223 0.961662223 324
663552 0.951503307 0.951503307 0.951503307 648
EOD
$l20 << EOD
# tokens gain gain gain step
1024 0.96914042 0.96914042 0.96914042 1
331776 0.992844979 0.992844979 0.992844979 324
663552 0.981330226 0.981330226 0.981330226 648
EOD
$l21 << EOD
# tokens gain gain gain step
1024 0.976662238 0.976662238 0.976662238 1
331776 0.990793973 0.990793973 0.990793973 324
663552 0.991638064 0.991638064 0.991638064 648
EOD
set title "Weight-gradient gain against fp32 over training: budget=1.0, recipe=nvfp4\n<dW, dW_fp32> / <dW_fp32, dW_fp32> per linear layer, mean over seeds"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set key outside right font ',7'
set xlabel 'tokens (log scale)'
set ylabel 'wgrad gain'
plot $l0 using 1:2 with linespoints lw 1.2 pt 4 ps 0.5 lc rgb '#0072B2' title 'layers.0.mlp.down_proj', \
     $l1 using 1:2 with linespoints lw 1.2 pt 5 ps 0.5 lc rgb '#D55E00' title 'layers.0.mlp.gate_proj', \
     $l2 using 1:2 with linespoints lw 1.2 pt 6 ps 0.5 lc rgb '#009E73' title 'layers.0.mlp.up_proj', \
     $l3 using 1:2 with linespoints lw 1.2 pt 7 ps 0.5 lc rgb '#CC79A7' title 'layers.0.self_attn.k_proj', \
     $l4 using 1:2 with linespoints lw 1.2 pt 8 ps 0.5 lc rgb '#E69F00' title 'layers.0.self_attn.o_proj', \
     $l5 using 1:2 with linespoints lw 1.2 pt 9 ps 0.5 lc rgb '#56B4E9' title 'layers.0.self_attn.q_proj', \
     $l6 using 1:2 with linespoints lw 1.2 pt 4 ps 0.5 lc rgb '#F0E442' title 'layers.0.self_attn.v_proj', \
     $l7 using 1:2 with linespoints lw 1.2 pt 5 ps 0.5 lc rgb '#882255' title 'layers.1.mlp.down_proj', \
     $l8 using 1:2 with linespoints lw 1.2 pt 6 ps 0.5 lc rgb '#44AA99' title 'layers.1.mlp.gate_proj', \
     $l9 using 1:2 with linespoints lw 1.2 pt 7 ps 0.5 lc rgb '#999933' title 'layers.1.mlp.up_proj', \
     $l10 using 1:2 with linespoints lw 1.2 pt 8 ps 0.5 lc rgb '#0072B2' title 'layers.1.self_attn.k_proj', \
     $l11 using 1:2 with linespoints lw 1.2 pt 9 ps 0.5 lc rgb '#D55E00' title 'layers.1.self_attn.o_proj', \
     $l12 using 1:2 with linespoints lw 1.2 pt 4 ps 0.5 lc rgb '#009E73' title 'layers.1.self_attn.q_proj', \
     $l13 using 1:2 with linespoints lw 1.2 pt 5 ps 0.5 lc rgb '#CC79A7' title 'layers.1.self_attn.v_proj', \
     $l14 using 1:2 with linespoints lw 1.2 pt 6 ps 0.5 lc rgb '#E69F00' title 'layers.2.mlp.down_proj', \
     $l15 using 1:2 with linespoints lw 1.2 pt 7 ps 0.5 lc rgb '#56B4E9' title 'layers.2.mlp.gate_proj', \
     $l16 using 1:2 with linespoints lw 1.2 pt 8 ps 0.5 lc rgb '#F0E442' title 'layers.2.mlp.up_proj', \
     $l17 using 1:2 with linespoints lw 1.2 pt 9 ps 0.5 lc rgb '#882255' title 'layers.2.self_attn.k_proj', \
     $l18 using 1:2 with linespoints lw 1.2 pt 4 ps 0.5 lc rgb '#44AA99' title 'layers.2.self_attn.o_proj', \
     $l19 using 1:2 with linespoints lw 1.2 pt 5 ps 0.5 lc rgb '#999933' title 'layers.2.self_attn.q_proj', \
     $l20 using 1:2 with linespoints lw 1.2 pt 6 ps 0.5 lc rgb '#0072B2' title 'layers.2.self_attn.v_proj', \
     $l21 using 1:2 with linespoints lw 1.2 pt 7 ps 0.5 lc rgb '#D55E00' title 'lm_head', 1 with lines dt 2 lc rgb 'gray' notitle
unset output
