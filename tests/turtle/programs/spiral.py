from turtle import *

speed(0)
colors = ["red", "orange", "gold", "green", "blue", "purple"]
for i in range(120):
    pencolor(colors[i % 6])
    width(i // 40 + 1)
    forward(i * 2)
    left(59)
hideturtle()
done()
