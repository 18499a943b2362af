import turtle

alice = turtle.Turtle()
bob = turtle.Turtle()
alice.color("red")
bob.color("blue")
bob.shape("turtle")
alice.speed(0)
bob.speed(0)
bob.penup()
bob.goto(100, 0)
bob.pendown()
for step in range(36):
    alice.forward(10)
    alice.left(10)
    bob.forward(8)
    bob.right(10)
print(alice.distance(bob), alice.towards(bob), bob.towards(0, 0))
turtle.done()
