# fp4lab plot 'fidelity_wgrad_g3' (written by fp4lab; data inline).
# Re-render: gnuplot fidelity_wgrad_g3.gp   or   gnuplot -e "fmt='svg'" fidelity_wgrad_g3.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'fidelity_wgrad_g3.' . fmt
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
1024 0.870592713 0.870592713 0.870592713 1
331776 0.970252395 0.970252395 0.970252395 324
663552 0.936025371 0.936025371 0.936025371 648
995328 0.92074434 0.92074434 0.92074434 972
EOD
$l1 << EOD
# tokens gain gain gain step
1024 0.857413789 0.857413789 0.857413789 1
331776 0.929077903 0.929077903 0.929077903 324
663552 0.875249386 0.875249386 0.875249386 648
995328 0.890472223 0.890472223 0.890472223 972
EOD
$l2 << EOD
# tokens gain gain gain step
1024 0.853291571 0.853291571 0.853291571 1
331776 0.924507976 0.924507976 0.924507976 324
663552 0.869596382 0.869596382 0.869596382 648
995328 0.880265623 0.880265623 0.880265623 972
EOD
$l3 << EOD
# tokens gain gain gain step
1024 0.825581849 0.825581849 0.825581849 1
331776 0.82228453 0.82228453 0.82228453 324
663552 0.825301091 0.825301091 0.825301091 648
995328 0.747003535 0.747003535 0.747003535 972
EOD
$l4 << EOD
# tokens gain gain gain step
1024 0.903296769 0.903296769 0.903296769 1
331776 0.810928931 0.810928931 0.810928931 324
663552 0.812408388 0.812408388 0.812408388 648
995328 0.811273803 0.811273803 0.811273803 972
EOD
$l5 << EOD
# tokens gain gain gain step
1024 0.849125544 0.849125544 0.849125544 1
331776 0.737469812 0.737469812 0.737469812 324
663552 0.802114626 0.802114626 0.802114626 648
995328 0.728308032 0.728308032 0.728308032 972
EOD
$l6 << EOD
# tokens gain gain gain step
1024 0.906963875 0.906963875 0.906963875 1
331776 0.832823068 0.832823068 0.832823068 324
663552 0.8245836 0.8245836 0.8245836 648
995328 0.806018372 0.806018372 0.806018372 972
EOD
$l7 << EOD
# tokens gain gain gain step
1024 0.872912387 0.872912387 0.872912387 1
331776 0.979822516 0.979822516 0.979822516 324
663552 0.967958669 0.967958669 0.967958669 648
995328 0.939596027 0.939596027 0.939596027 972
EOD
$l8 << EOD
# tokens gain gain gain step
1024 0.868560274 0.868560274 0.868560274 1
331776 0.907838752 0.907838752 0.907838752 324
663552 0.919431567 0.919431567 0.919431567 648
995328 0.90272217 0.90272217 0.90272217 972
EOD
$l9 << EOD
# tokens gain gain gain step
1024 0.874420653 0.874420653 0.874420653 1
331776 0.92467761 0.92467761 0.92467761 324
663552 0.947344949 0.947344949 0.947344949 648
995328 0.918966989 0.918966989 0.918966989 972
EOD
$l10 << EOD
# tokens gain gain gain step
1024 0.846569171 0.846569171 0.846569171 1
331776 0.926573624 0.926573624 0.926573624 324
663552 0.892918527 0.892918527 0.892918527 648
995328 0.834652652 0.834652652 0.834652652 972
EOD
$l11 << EOD
# tokens gain gain gain step
1024 0.897718797 0.897718797 0.897718797 1
331776 0.972862015 0.972862015 0.972862015 324
663552 0.962336004 0.962336004 0.962336004 648
995328 0.938816667 0.938816667 0.938816667 972
EOD
$l12 << EOD
# tokens gain gain gain step
1024 0.840349903 0.840349903 0.840349903 1
331776 0.968731682 0.968731682 0.968731682 324
663552 0.909323374 0.909323374 0.909323374 648
995328 0.838000923 0.838000923 0.838000923 972
EOD
$l13 << EOD
# tokens gain gain gain step
1024 0.908761382 0.908761382 0.908761382 1
331776 0.939463993 0.939463993 0.939463993 324
663552 0.923640043 0.923640043 0.923640043 648
995328 0.878471692 0.878471692 0.878471692 972
EOD
$l14 << EOD
# tokens gain gain gain step
1024 0.875714352 0.875714352 0.875714352 1
331776 0.950221896 0.950221896 0.950221896 324
663552 0.976018657 0.976018657 0.976018657 648
995328 0.959301184 0.959301184 0.959301184 972
EOD
$l15 << EOD
# tokens gain gain gain step
1024 0.867251744 0.867251744 0.867251744 1
331776 0.912211249 0.912211249 0.912211249 324
663552 0.958877097 0.958877097 0.958877097 648
995328 0.919172406 0.919172406 0.919172406 972
EOD
$l16 << EOD
# tokens gain gain gain step
1024 0.872175525 0.872175525 0.872175525 1
331776 0.927512497 0.927512497 0.927512497 324
663552 0.958530406 0.958530406 0.958530406 648
995328 0.927108993 0.927108993 0.927108993 972
EOD
$l17 << EOD
# tokens gain gain gain step
1024 0.849956612 0.849956612 0.849956612 1
331776 0.987549086 0.987549086 0.987549086 324
663552 0.868588994 0.868588994 0.868588994 648
995328 0.916202863 0.916202863 0.916202863 972
EOD
$l18 << EOD
# tokens gain gain gain step
1024 0.882724941 0.882724941 0.882724941 1
331776 0.987062007 0.987062007 0.987062007 324
663552 0.970634152 0.970634152 0.970634152 648
995328 0.94340078 0.94340078 0.94340078 972
EOD
$l19 << EOD
# tokens gain gain gain step
1024 0.829865356 0.829865356 0.829865356 1
331776 0.98143358 0.98143358 0.98143358 324
663552 0.906051288 0.906051288 0.906051288 648
995328 0.901589652 0.901589652 0.901589652 972
EOD
$l20 << EOD
# tokens gain gain gain step
1024 0.897843222 0.897843222 0.897843222 1
331776 0.978198151 0.978198151 0.978198151 324
663552 0.941671669 0.941671669 0.941671669 648
995328 0.906832397 0.906832397 0.906832397 972
EOD
$l21 << EOD
# tokens gain gain gain step
1024 0.9540402 0.9540402 0.9540402 1
331776 0.978647153 0.978647153 0.978647153 324
663552 0.969357322 0.969357322 0.969357322 648
995328 0.962232262 0.962232262 0.962232262 972
EOD
set title "Weight-gradient gain against fp32 over training: budget=1.6, recipe=mxfp4\n<dW, dW_fp32> / <dW_fp32, dW_fp32> per linear layer, mean over seeds"
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
